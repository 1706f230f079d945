package multiclusterjob_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterjob"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestRestartedControllerWaitsForEveryReadyCluster: a restarted controller
// learns of the Clusters one at a time. While its inventory has connected
// cluster1 and not yet heard of cluster2, whose Cluster says Ready and
// which runs the job's member Job (written by the killed controller, whose
// status write with the share was lost with it), a pass must not place the
// job's pods again in cluster1; once cluster2 is connected, its Job counts.
// test/chaos found the job run twice this way (seed 1795496425444316872:
// j-3 of parallelism 6 had 6 pods in one member and 2 more in another).
func TestRestartedControllerWaitsForEveryReadyCluster(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 2})
	ctx := t.Context()
	mgmt := env.Management.Client
	clients := map[string]client.Client{}
	clusters := map[string]*multiclusterv1alpha1.Cluster{}
	for i, m := range env.Members {
		name := []string{"cluster1", "cluster2"}[i]
		clients[name] = m.Client
		addNode(t, m.Client, name+"-node", "8")
		if err := m.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "batch"}}); err != nil {
			t.Fatal(err)
		}
		c := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Spec.KubeconfigSecretRef.Name = name
		if err := mgmt.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
		// Ready, as the killed controller's last heartbeat left it.
		meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: multiclusterv1alpha1.ClusterReady, Status: metav1.ConditionTrue, Reason: "Heartbeat", Message: "ready"})
		if err := mgmt.Status().Update(ctx, c); err != nil {
			t.Fatal(err)
		}
		clusters[name] = c
	}
	if err := mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "batch"}}); err != nil {
		t.Fatal(err)
	}
	mcj := render(2, 4)
	if err := mgmt.Create(ctx, mcj); err != nil {
		t.Fatal(err)
	}
	// The killed controller's write: all of the job in cluster2.
	if err := clients["cluster2"].Create(ctx, propagation.Job(mcj, 2, ptr.To[int32](4))); err != nil {
		t.Fatal(err)
	}

	inv := inventory.New(inventory.Options{})
	connect := func(name string, i int) {
		t.Helper()
		if _, err := inv.Connect(ctx, name, env.Members[i].Config, ""); err != nil {
			t.Fatal(err)
		}
		inv.SetCluster(clusters[name], true)
	}
	connect("cluster1", 0)
	t.Cleanup(func() { inv.Disconnect("cluster1"); inv.Disconnect("cluster2") })
	fw, err := placement.NewFramework(plugins.NewRegistry(), plugins.Profiles()...)
	if err != nil {
		t.Fatal(err)
	}
	r := &multiclusterjob.Reconciler{
		Client: mgmt, Inventory: inv, Framework: fw, Assumptions: placement.NewAssumptions(),
		Retry: time.Second, PendingGrace: time.Minute, Clock: clock.RealClock{},
	}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(mcj)}
	want := map[string]string{"cluster2": "2/4"}

	res, err := r.Reconcile(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, memberJobs(t, clients)); diff != "" {
		t.Errorf("member Jobs after a pass before cluster2 is connected (-want +got):\n%s", diff)
	}
	if res.RequeueAfter <= 0 {
		t.Errorf("the pass waiting for cluster2 asked for no requeue (%+v)", res)
	}

	connect("cluster2", 1)
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, memberJobs(t, clients)); diff != "" {
		t.Errorf("member Jobs after a pass with every member connected (-want +got):\n%s", diff)
	}
	got := &multiclusterv1alpha1.MultiClusterJob{}
	if err := mgmt.Get(ctx, req.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("cluster2=2", got.Status.Summary); diff != "" {
		t.Errorf("status.summary (-want +got):\n%s", diff)
	}
}
