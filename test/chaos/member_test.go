package chaos_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
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
	bin := testenv.MeridianBinary(t)
	w := startTestbed(t, 3)
	const lost = "member-2"
	cut := testenv.RouteMemberThroughProxy(t, w.mgmt, w.tb, lost)
	w.loseMember(t, bin, lost, memberFault{
		what:      "cut off",
		reachable: true,
		lose:      cut.Break,
		restore:   cut.Restore,
	})
}

// TestMemberAPIServerRestart kills a member's kube-apiserver with SIGKILL
// while workloads run on it, and starts it again after the failover grace
// (with the member's other components that exited meanwhile, as a kubelet
// restarts its static pods): the same must hold as when the member is cut
// off.
func TestMemberAPIServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping chaos test on real clusters in -short mode")
	}
	bin := testenv.MeridianBinary(t)
	w := startTestbed(t, 3)
	const lost = "member-2"
	ctx := t.Context()
	w.loseMember(t, bin, lost, memberFault{
		what: "API server killed",
		lose: func() {
			if err := testbed.KillComponent(ctx, w.tb.Dir, lost, apiServer); err != nil {
				t.Fatalf("failed to kill the API server of %s: %v", lost, err)
			}
		},
		restore: func() {
			if err := testbed.StartExited(ctx, w.tb.Dir, lost); err != nil {
				t.Fatalf("failed to start the API server of %s again: %v", lost, err)
			}
			// A component that gave up while its API server was gone
			// (kube-controller-manager loses its lease and exits) is
			// started again too, until the member runs in full.
			if msg := waitFor(ctx, 2*time.Minute, func() string { return w.memberUp(ctx, lost) }); msg != "" {
				t.Fatalf("%s not running in full again within 2 minutes: %s", lost, msg)
			}
		},
	})
}

// apiServer is the testbed component that TestMemberAPIServerRestart kills.
const apiServer = "kube-apiserver"

// memberFault takes a member away from the controller and gives it back.
type memberFault struct {
	what string
	// reachable says the test's own clients still reach the member while
	// it is lost.
	reachable     bool
	lose, restore func()
}

// memberLoad is the number of WorstFit MultiClusterDeployments of
// memberLoadReplicas that run across the members when one is lost.
const (
	memberLoad         = 6
	memberLoadReplicas = 6
)

// loseMember runs the controller, places memberLoad workloads across the
// members, takes member away with f and checks NotReady within heartbeat
// interval and timeout and the replicas re-placed after the failover grace
// (not before); then gives it back and checks that every invariant holds
// again.
func (w *world) loseMember(t *testing.T, bin, member string, f memberFault) {
	t.Helper()
	ctx := t.Context()
	ctl := newReplica(t, w, bin, "controller", false)
	ctl.start()
	if msg := waitFor(ctx, 2*time.Minute, func() string { return w.membersReady(ctx) }); msg != "" {
		t.Fatalf("members not Ready: %s", msg)
	}
	if err := w.mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		t.Fatal(err)
	}
	for i := range memberLoad {
		name := fmt.Sprintf("load-%d", i)
		mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		mcd.Spec.Replicas = ptr.To[int32](memberLoadReplicas)
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
	total.add("before the loss", r)
	if !r.ok() {
		t.Fatalf("before the loss, not settled within %s:\n%s", settleTimeout, r)
	}
	if n := w.replicasGivenTo(t, member); n == 0 {
		t.Fatalf("no replicas placed on %s before the loss; the test would prove nothing", member)
	}

	lostAt := time.Now()
	f.lose()
	t.Logf("%s %s", member, f.what)
	if msg := waitFor(ctx, time.Minute, func() string { return w.clusterReady(t, member, false) }); msg != "" {
		t.Fatalf("%s not NotReady within a minute: %s", member, msg)
	}
	notReadyAt := time.Now()
	detect := notReadyAt.Sub(lostAt)
	// The bound is the heartbeat's, with room for a loaded machine's
	// scheduling and the 500 ms poll.
	if limit := heartbeatInterval + heartbeatTimeout + 5*time.Second; detect > limit {
		t.Errorf("%s NotReady %s after it was %s, want within %s (heartbeat interval + timeout + 5 s slack)", member, detect.Round(100*time.Millisecond), f.what, limit)
	}
	if msg := waitFor(ctx, 2*time.Minute, func() string {
		if n := w.replicasGivenTo(t, member); n > 0 {
			return fmt.Sprintf("%d replicas still given to %s", n, member)
		}
		return ""
	}); msg != "" {
		t.Fatalf("replicas not re-placed: %s", msg)
	}
	moved := time.Since(notReadyAt)
	if moved < failoverGrace-time.Second {
		t.Errorf("replicas moved off %s %s after it turned NotReady, before the failover grace of %s", member, moved.Round(100*time.Millisecond), failoverGrace)
	}
	stale := "unknown (unreachable)"
	if f.reachable {
		stale = fmt.Sprint(w.countObjects(t, member))
	}
	t.Logf("%s NotReady %s after it was %s; replicas re-placed %s after NotReady; %s stale member objects left on it",
		member, detect.Round(100*time.Millisecond), f.what, moved.Round(100*time.Millisecond), stale)

	restoredAt := time.Now()
	f.restore()
	if msg := waitFor(ctx, time.Minute, func() string { return w.clusterReady(t, member, true) }); msg != "" {
		t.Fatalf("%s not Ready again within a minute of the return: %s", member, msg)
	}
	t.Logf("%s Ready again %s after the return began", member, time.Since(restoredAt).Round(100*time.Millisecond))
	r, err = w.settle(ctx, settleTimeout)
	if err != nil {
		t.Fatal(err)
	}
	total.add("after the return", r)
	total.log(t)
	if !r.ok() {
		t.Errorf("after %s returned, not settled within %s:\n%s", member, settleTimeout, r)
	}
	if !ctl.alive() {
		t.Error("the controller exited on its own; see its log")
	}
	// Connection errors of the lost member name no credential.
	assertNoSecretsLogged(t, w, ctl.log)
}

// memberUp returns "" when every component of member runs, its API server
// is ready and its nodes are; it starts again the components that exited.
func (w *world) memberUp(ctx context.Context, member string) string {
	st, err := testbed.GetClusterStatus(ctx, w.tb.Dir, member)
	if err != nil {
		return err.Error()
	}
	if st.Ready() {
		return ""
	}
	var dead []string
	for _, c := range st.Components {
		if !c.Alive {
			dead = append(dead, c.Name)
		}
	}
	if len(dead) > 0 {
		if err := testbed.StartExited(ctx, w.tb.Dir, member); err != nil {
			return err.Error()
		}
		return fmt.Sprintf("started %s again", strings.Join(dead, ", "))
	}
	if st.APIError != "" {
		return "API server: " + st.APIError
	}
	return fmt.Sprintf("%d of %d nodes ready", st.NodesReady, st.NodesTotal)
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
