package clusterapi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// testRetire removes a flavor from the spec: its MachineDeployment is
// reported (Removed), not left running unseen; asked for as Retired, it is
// scaled down, the named node's Machine first, and deleted with its
// templates once it has no Machine.
func (s *suite) testRetire(t *testing.T) {
	spec := s.namespace(t)
	ns := spec.Namespace
	large := cloud.Pool{Name: "m1-large", Flavor: "m1.large", NodeCPU: resource.MustParse("4"), NodeMemory: resource.MustParse("8Gi"), Workers: 1}
	xlarge := cloud.Pool{Name: "m1-xlarge", Flavor: "m1.xlarge", NodeCPU: resource.MustParse("8"), NodeMemory: resource.MustParse("16Gi"), Workers: 2}
	spec.Pools = []cloud.Pool{large, xlarge}
	s.ensure(t, spec)
	s.machine(t, ns, "x-a", "cloud1-md-m1-xlarge", "node-xa")
	s.machine(t, ns, "x-b", "cloud1-md-m1-xlarge", "node-xb")
	setReplicas := func(replicas int32) {
		patchStatus(t, s, &clusterv1.MachineDeployment{}, ns, "cloud1-md-m1-xlarge", func(md *clusterv1.MachineDeployment) {
			md.Status.Replicas, md.Status.ReadyReplicas, md.Status.AvailableReplicas = ptr.To(replicas), ptr.To(replicas), ptr.To(replicas)
		})
	}
	setReplicas(2)

	// The flavor is removed: its pool is still reported.
	spec.Pools = []cloud.Pool{large}
	if diff := cmp.Diff([]cloud.PoolStatus{{Name: "m1-large"}, {Name: "m1-xlarge", Workers: 2, ReadyWorkers: 2, Removed: true}}, s.status(t, spec).Pools); diff != "" {
		t.Errorf("pools after the flavor went (-want +got):\n%s", diff)
	}
	// Ensure without it leaves it as it is.
	s.ensure(t, spec)
	if got := s.replicas(t, ns, "cloud1-md-m1-xlarge"); got == nil || *got != 2 {
		t.Errorf("replicas of the removed pool after an Ensure that does not list it: %v; want 2", got)
	}

	// One node drained: asked for as Retired with one worker, that node's
	// Machine first.
	spec.Pools = []cloud.Pool{large, {Name: "m1-xlarge", Retired: true, Workers: 1, Remove: []string{"node-xb"}}}
	s.ensure(t, spec)
	if got := s.replicas(t, ns, "cloud1-md-m1-xlarge"); got == nil || *got != 1 {
		t.Errorf("replicas of the retired pool: %v; want 1", got)
	}
	m := &clusterv1.Machine{}
	if err := s.capi.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "x-b"}, m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Annotations[clusterv1.DeleteMachineAnnotation]; !ok {
		t.Errorf("Machine x-b of the drained node not marked for deletion")
	}
	// A retired pool is never grown.
	spec.Pools[1] = cloud.Pool{Name: "m1-xlarge", Retired: true, Workers: 3}
	s.ensure(t, spec)
	if got := s.replicas(t, ns, "cloud1-md-m1-xlarge"); got == nil || *got != 1 {
		t.Errorf("replicas of the retired pool asked for more: %v; want 1", got)
	}

	// The last node drained: scaled to zero, and deleted once Cluster API
	// reports no Machine left.
	spec.Pools[1] = cloud.Pool{Name: "m1-xlarge", Retired: true}
	s.ensure(t, spec)
	if got := s.replicas(t, ns, "cloud1-md-m1-xlarge"); got == nil || *got != 0 {
		t.Errorf("replicas of the emptied retired pool: %v; want 0", got)
	}
	setReplicas(0)
	s.ensure(t, spec)
	for _, o := range []object{{machineDeploymentGVK, "cloud1-md-m1-xlarge"}, {configTemplateGVK, "cloud1-md-m1-xlarge"}, {openStackMachineTemplate, "cloud1-md-m1-xlarge"}} {
		if u := s.read(t, ns, o); u != nil {
			t.Errorf("%s of the retired pool still there", o)
		}
	}
	if s.read(t, ns, object{machineDeploymentGVK, "cloud1-md-m1-large"}) == nil {
		t.Errorf("the pool that stays was deleted")
	}
	if diff := cmp.Diff([]cloud.PoolStatus{{Name: "m1-large"}}, s.status(t, spec).Pools); diff != "" {
		t.Errorf("pools after the retired one went (-want +got):\n%s", diff)
	}
}

func (s *suite) replicas(t *testing.T, namespace, name string) *int32 {
	t.Helper()
	md := &clusterv1.MachineDeployment{}
	if err := s.capi.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: name}, md); err != nil {
		t.Fatal(err)
	}
	return md.Spec.Replicas
}
