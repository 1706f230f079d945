package clusterapi_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func (s *suite) testShrink(t *testing.T) {
	spec := s.namespace(t)
	ns := spec.Namespace
	spec.Pools[0].Workers = 3
	s.ensure(t, spec)
	s.machine(t, ns, "cloud1-md-0-a", "cloud1-md-0", "node-a")
	s.machine(t, ns, "cloud1-md-0-b", "cloud1-md-0", "node-b")
	s.machine(t, ns, "cloud1-md-0-c", "cloud1-md-0", "node-c")
	s.machine(t, ns, "cloud1-other-x", "cloud1-other", "node-x")

	for _, step := range []struct {
		name         string
		workers      int32
		remove       []string
		wantMarked   []string
		wantReplicas int32
	}{{
		name:         "a node to remove but no fewer workers",
		workers:      3,
		remove:       []string{"node-a"},
		wantReplicas: 3,
	}, {
		name:         "one fewer: the first removable node in order",
		workers:      2,
		remove:       []string{"node-gone", "node-x", "node-b", "node-c"},
		wantMarked:   []string{"cloud1-md-0-b"},
		wantReplicas: 2,
	}, {
		name:         "two fewer: a marked node counts",
		workers:      0,
		remove:       []string{"node-b", "node-c"},
		wantMarked:   []string{"cloud1-md-0-b", "cloud1-md-0-c"},
		wantReplicas: 0,
	}} {
		t.Run(step.name, func(t *testing.T) {
			spec.Pools[0].Workers, spec.Pools[0].Remove = step.workers, step.remove
			s.ensure(t, spec)
			machines := &clusterv1.MachineList{}
			if err := s.capi.List(t.Context(), machines, client.InNamespace(ns)); err != nil {
				t.Fatal(err)
			}
			var marked []string
			for _, m := range machines.Items {
				if v, ok := m.Annotations[clusterv1.DeleteMachineAnnotation]; ok {
					marked = append(marked, m.Name+"="+v)
				}
			}
			want := []string{}
			for _, name := range step.wantMarked {
				want = append(want, name+"=yes")
			}
			slices.Sort(marked)
			if diff := cmp.Diff(want, marked, cmpEmpty); diff != "" {
				t.Errorf("Machines with %s (-want +got):\n%s", clusterv1.DeleteMachineAnnotation, diff)
			}
			md := &clusterv1.MachineDeployment{}
			if err := s.capi.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "cloud1-md-0"}, md); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ptr.To(step.wantReplicas), md.Spec.Replicas); diff != "" {
				t.Errorf("MachineDeployment replicas (-want +got):\n%s", diff)
			}
		})
	}
}
