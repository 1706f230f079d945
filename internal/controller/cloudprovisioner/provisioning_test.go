package cloudprovisioner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestGrowsAClusterBeingProvisioned: while the cloud cluster is being
// created, the observation lists the workers asked of each pool as coming
// (so that the predictive mode grows the pools only beyond them), and a
// retired pool's workers; nodes the decision adds are recorded in status
// before the backend is asked for the larger pool, with the phase still
// Provisioning, so that a restarted controller observes them as coming.
// A cluster that was Ready and is not now is Unreachable: nothing in it is
// observed, and nothing decided.
func TestGrowsAClusterBeingProvisioned(t *testing.T) {
	if testing.Short() {
		t.Skip("needs an API server")
	}
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client
	cp := &multiclusterv1alpha1.CloudProvisioner{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "burst"}}
	cp.Spec.CloudClusterName = "cloud"
	cp.Spec.Backend = multiclusterv1alpha1.BackendTestbed
	cp.Spec.Provider, cp.Spec.Region, cp.Spec.MaxNodes = "Testbed", "local", 6
	cp.Spec.Mode = multiclusterv1alpha1.ModePredictive
	cp.Spec.Flavors = []multiclusterv1alpha1.CloudFlavor{
		{Name: "medium", CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi"), PricePerHour: usdPerHour("0.1")},
		{Name: "large", CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi"), PricePerHour: usdPerHour("0.2")},
	}
	if err := c.Create(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	cp.Status.Phase = multiclusterv1alpha1.PhaseProvisioning
	cp.Status.Pools = []multiclusterv1alpha1.NodePoolStatus{{Name: "medium", DesiredNodes: 1}, {Name: "large", DesiredNodes: 2}, {Name: "old", DesiredNodes: 1, Removed: true}}
	if err := c.Status().Update(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	backend := &recordingBackend{c: c, key: client.ObjectKeyFromObject(cp)}
	r := &Reconciler{Client: c, Inventory: inventory.New(inventory.Options{}), Clock: clocktesting.NewFakeClock(time.Now()), Recorder: events.NewFakeRecorder(10)}
	// The backend reports the retired pool it found, as it does once a
	// flavor is taken out of spec.flavors.
	st := cloud.Status{Exists: true, Pools: []cloud.PoolStatus{{Name: "old", Workers: 1, Removed: true}}}
	type node struct{ Name, Flavor string }
	observe := func(cp *multiclusterv1alpha1.CloudProvisioner) (cloud.Spec, provision.Observation, []node) {
		t.Helper()
		spec, flavors, err := r.cloudSpec(t.Context(), cp)
		if err != nil {
			t.Fatal(err)
		}
		retire(&spec, st, cp.Status.Pools)
		in, err := r.observe(t.Context(), cp, st, spec, flavors, nil)
		if err != nil {
			t.Fatal(err)
		}
		obs := provision.Observe(in)
		var nodes []node
		for _, n := range obs.Cloud.Nodes {
			nodes = append(nodes, node{n.Name, n.Flavor})
		}
		return spec, obs, nodes
	}
	spec, obs, got := observe(cp)
	want := []node{{"coming-medium-0", "medium"}, {"coming-large-0", "large"}, {"coming-large-1", "large"}, {"retired-old-0", "old"}}
	if obs.Cloud.Phase != provision.Provisioning {
		t.Errorf("phase %s; want %s", obs.Cloud.Phase, provision.Provisioning)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nodes observed while provisioning (-want +got):\n%s", diff)
	}

	d := provision.Decision{Action: provision.AddNodes, Add: []provision.NodeGroup{{Flavor: "large", Nodes: 1}}, Reason: "forecast needs room for 3 more (0.20/h)"}
	if err := r.act(t.Context(), cp, backend, spec, st, obs, d, nil); err != nil {
		t.Fatal(err)
	}
	wantStored := []multiclusterv1alpha1.NodePoolStatus{{Name: "medium", DesiredNodes: 1}, {Name: "large", DesiredNodes: 3}, {Name: "old", DesiredNodes: 1, Nodes: 1, Removed: true}}
	if diff := cmp.Diff(wantStored, backend.stored); diff != "" {
		t.Errorf("status stored when the backend was asked (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]cloud.Pool{{Name: "medium", Flavor: "medium", Workers: 1}, {Name: "large", Flavor: "large", Workers: 3}, {Name: "old", Workers: 1}}, poolsOf(backend.asked)); diff != "" {
		t.Errorf("asked of the backend (-want +got):\n%s", diff)
	}
	stored := &multiclusterv1alpha1.CloudProvisioner{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(cp), stored); err != nil {
		t.Fatal(err)
	}
	if stored.Status.Phase != multiclusterv1alpha1.PhaseProvisioning {
		t.Errorf("phase %s after the nodes were added; want %s", stored.Status.Phase, multiclusterv1alpha1.PhaseProvisioning)
	}
	// A restarted controller reads the grown pool back from status.
	_, _, got = observe(stored)
	want = []node{{"coming-medium-0", "medium"}, {"coming-large-0", "large"}, {"coming-large-1", "large"}, {"coming-large-2", "large"}, {"retired-old-0", "old"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nodes observed after a restart (-want +got):\n%s", diff)
	}

	// Once it was Ready, a cluster whose member is not is unreachable.
	stored.Status.ProvisionedTime = &metav1.Time{Time: time.Now()}
	if _, obs, got = observe(stored); obs.Cloud.Phase != provision.Unreachable || len(got) != 0 {
		t.Errorf("a cluster Ready once and not joined now: phase %s, nodes %v; want %s and none", obs.Cloud.Phase, got, provision.Unreachable)
	}
}
