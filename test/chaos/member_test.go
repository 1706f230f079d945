package chaos_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// TestMemberLossAndReturn cuts a member off the controller while
// workloads run on it, and restores it: the member must turn NotReady
// within the heartbeat interval and timeout, its replicas be placed
// elsewhere once the failover grace has passed (not before), and after its
// return its stale member objects be cleaned up, so that no replica runs
// twice.
func TestMemberLossAndReturn(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping chaos test on real clusters in -short mode")
	}
	bin := meridianBinary(t)
	w := startTestbed(t, 3)
	ctx := t.Context()
	const lost = "member-2"
	cut := w.routeThroughCutter(t, lost)

	ctl := newReplica(t, w, bin, "controller", false)
	ctl.start()
	if msg := waitFor(ctx, 2*time.Minute, func() string { return w.membersReady(ctx) }); msg != "" {
		t.Fatalf("members not Ready: %s", msg)
	}
	if err := w.mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		name := fmt.Sprintf("load-%d", i)
		mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		mcd.Spec.Replicas = ptr.To[int32](6)
		mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
		mcd.Spec.Template = podTemplate(name, 500)
		mcd.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit}
		if err := w.mgmt.Create(ctx, mcd); err != nil {
			t.Fatal(err)
		}
	}
	total := newTally()
	r, err := w.settle(ctx, settleTimeout)
	if err != nil {
		t.Fatal(err)
	}
	total.add("before the cut", r)
	if !r.ok() {
		t.Fatalf("before the cut, not settled within %s:\n%s", settleTimeout, r)
	}
	if n := w.replicasGivenTo(t, lost); n == 0 {
		t.Fatalf("no replicas placed on %s before the cut; the test would prove nothing", lost)
	}

	cutAt := time.Now()
	cut.setCut(true)
	t.Logf("%s cut off", lost)
	if msg := waitFor(ctx, time.Minute, func() string { return w.clusterReady(t, lost, false) }); msg != "" {
		t.Fatalf("%s not NotReady within a minute of the cut: %s", lost, msg)
	}
	notReadyAt := time.Now()
	detect := notReadyAt.Sub(cutAt)
	// The bound is the heartbeat's, with room for a loaded machine's
	// scheduling and the 500 ms poll.
	if limit := heartbeatInterval + heartbeatTimeout + 5*time.Second; detect > limit {
		t.Errorf("%s NotReady %s after the cut, want within %s (heartbeat interval + timeout + 5 s slack)", lost, detect.Round(100*time.Millisecond), limit)
	}
	if msg := waitFor(ctx, 2*time.Minute, func() string {
		if n := w.replicasGivenTo(t, lost); n > 0 {
			return fmt.Sprintf("%d replicas still given to %s", n, lost)
		}
		return ""
	}); msg != "" {
		t.Fatalf("replicas not re-placed: %s", msg)
	}
	moved := time.Since(notReadyAt)
	if moved < failoverGrace-time.Second {
		t.Errorf("replicas moved off %s %s after it turned NotReady, before the failover grace of %s", lost, moved.Round(100*time.Millisecond), failoverGrace)
	}
	stale := w.countObjects(t, lost)
	t.Logf("%s NotReady %s after the cut; replicas re-placed %s after NotReady; %d stale member objects left on it", lost, detect.Round(100*time.Millisecond), moved.Round(100*time.Millisecond), stale)

	cut.setCut(false)
	if msg := waitFor(ctx, time.Minute, func() string { return w.clusterReady(t, lost, true) }); msg != "" {
		t.Fatalf("%s not Ready again within a minute of the return: %s", lost, msg)
	}
	r, err = w.settle(ctx, settleTimeout)
	if err != nil {
		t.Fatal(err)
	}
	total.add("after the return", r)
	total.log(t)
	if !r.ok() {
		t.Errorf("after %s returned, not settled within %s:\n%s", lost, settleTimeout, r)
	}
	if !ctl.alive() {
		t.Error("the controller exited on its own; see its log")
	}
}

// routeThroughCutter rewrites member's kubeconfig Secret so that the
// controller reaches it through a cutter, and returns the cutter. It must
// run before the controller starts. The test's own clients go to the
// member directly.
func (w *world) routeThroughCutter(t *testing.T, member string) *cutter {
	t.Helper()
	m := w.tb.Cluster(member)
	u, err := url.Parse(m.Config.Host)
	if err != nil {
		t.Fatalf("failed to parse API server address %q: %v", m.Config.Host, err)
	}
	c := newCutter(t, u.Host)
	cfg, err := clientcmd.Load(m.Kubeconfig)
	if err != nil {
		t.Fatalf("failed to load the kubeconfig of %s: %v", member, err)
	}
	for _, cl := range cfg.Clusters {
		cl.Server = "https://" + c.addr()
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	key := client.ObjectKey{Namespace: testbed.Namespace, Name: testbed.KubeconfigSecretName(member)}
	if err := w.mgmt.Get(t.Context(), key, secret); err != nil {
		t.Fatalf("failed to read the kubeconfig Secret of %s: %v", member, err)
	}
	secret.Data[testbed.KubeconfigKey] = data
	if err := w.mgmt.Update(t.Context(), secret); err != nil {
		t.Fatalf("failed to route %s through the cutter: %v", member, err)
	}
	return c
}

// clusterReady returns "" when the Cluster's Ready condition is want.
func (w *world) clusterReady(t *testing.T, name string, want bool) string {
	var c multiclusterv1alpha1.Cluster
	if err := w.mgmt.Get(t.Context(), client.ObjectKey{Name: name}, &c); err != nil {
		return err.Error()
	}
	if got := isTrue(c.Status.Conditions, multiclusterv1alpha1.ClusterReady); got != want {
		return fmt.Sprintf("Ready is %v", got)
	}
	return ""
}

// replicasGivenTo adds up the replicas the MultiClusterDeployments' status
// gives member.
func (w *world) replicasGivenTo(t *testing.T, member string) int32 {
	t.Helper()
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	if err := w.mgmt.List(t.Context(), &list); err != nil {
		t.Fatal(err)
	}
	var n int32
	for _, d := range list.Items {
		for _, c := range d.Status.Clusters {
			if string(c.Name) == member {
				n += c.Replicas
			}
		}
	}
	return n
}

// countObjects counts the member objects Meridian made in member.
func (w *world) countObjects(t *testing.T, member string) int {
	t.Helper()
	objs, err := w.memberObjects(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range objs {
		if o.member == member {
			n++
		}
	}
	return n
}
