package provision

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/placement"
)

// usd is amount US dollars.
func usd(amount string) money.Money { return money.New(resource.MustParse(amount), "USD") }

func res(milli int64, memGi int64) placement.Resources {
	return placement.Resources{MilliCPU: milli, Memory: memGi * gi, Pods: 1}
}

func TestCheapestMix(t *testing.T) {
	flavors := []Flavor{
		{Name: "small", Allocatable: placement.Resources{MilliCPU: 2000, Memory: 8 * gi, Pods: 110}, PricePerHour: usd("0.1")},
		{Name: "medium", Allocatable: placement.Resources{MilliCPU: 4000, Memory: 16 * gi, Pods: 110}, PricePerHour: usd("0.2")},
		{Name: "large", Allocatable: placement.Resources{MilliCPU: 8000, Memory: 32 * gi, Pods: 110}, PricePerHour: usd("0.4")},
		{Name: "highcpu", Allocatable: placement.Resources{MilliCPU: 8000, Memory: 16 * gi, Pods: 110}, PricePerHour: usd("0.34")},
	}
	tests := []struct {
		name      string
		pods      []placement.Resources
		flavors   []Flavor
		want      []NodeGroup
		wantUnfit int
	}{
		{name: "nothing", want: nil},
		{name: "one small pod takes the smallest flavor", pods: []placement.Resources{res(500, 1)}, want: []NodeGroup{{Flavor: "small", Nodes: 1}}},
		{
			name: "a pod too large for the smallest flavor gets one that holds it, the small pods pack beside it",
			pods: []placement.Resources{res(6000, 12), res(500, 1), res(500, 1), res(500, 1)},
			want: []NodeGroup{{Flavor: "highcpu", Nodes: 1}},
		},
		{
			name: "CPU-heavy pods go to the flavor cheapest for CPU",
			pods: []placement.Resources{res(3000, 2), res(3000, 2), res(2000, 2)},
			want: []NodeGroup{{Flavor: "highcpu", Nodes: 1}},
		},
		{
			name: "memory-heavy pods go to the flavor with the memory",
			pods: []placement.Resources{res(1000, 20), res(1000, 10)},
			want: []NodeGroup{{Flavor: "large", Nodes: 1}},
		},
		{
			name: "the last node is shrunk to what it holds",
			pods: []placement.Resources{res(4000, 4), res(4000, 4), res(1000, 1)},
			want: []NodeGroup{{Flavor: "small", Nodes: 1}, {Flavor: "highcpu", Nodes: 1}},
		},
		{
			name:      "a pod larger than every flavor is left apart",
			pods:      []placement.Resources{res(16000, 1), res(500, 1)},
			want:      []NodeGroup{{Flavor: "small", Nodes: 1}},
			wantUnfit: 1,
		},
		{
			name:    "one flavor: first fit decreasing",
			pods:    []placement.Resources{res(1000, 1), res(3000, 1), res(1000, 1), res(3000, 1)},
			flavors: flavors[1:2],
			want:    []NodeGroup{{Flavor: "medium", Nodes: 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := tc.flavors
			if fs == nil {
				fs = flavors
			}
			m, unfit := cheapestMix(tc.pods, fs)
			if diff := cmp.Diff(tc.want, m.groups(fs)); diff != "" {
				t.Errorf("cheapestMix (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantUnfit, len(unfit)); diff != "" {
				t.Errorf("unfit pods (-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkCheapestMix(b *testing.B) {
	flavors := []Flavor{
		{Name: "small", Allocatable: placement.Resources{MilliCPU: 2000, Memory: 8 * gi, Pods: 110}, PricePerHour: usd("0.1")},
		{Name: "large", Allocatable: placement.Resources{MilliCPU: 8000, Memory: 32 * gi, Pods: 110}, PricePerHour: usd("0.4")},
	}
	var pods []placement.Resources
	for i := range 500 {
		pods = append(pods, res(int64(50+(i*37)%1900), int64(1+i%6)))
	}
	for b.Loop() {
		cheapestMix(pods, flavors)
	}
}

func TestObserve(t *testing.T) {
	small, big := res(500, 1), res(3000, 4)
	in := Input{
		Workloads: []Workload{
			{Requests: small, Asked: 4, Unplaced: 1, Overflows: true},
			// A job whose replicas may not leave their cluster: demand,
			// never unschedulable for the cloud.
			{Requests: big, Asked: 2, Unplaced: 2},
			{Requests: small, Asked: 1, Overflows: true},
		},
		Members: []Member{
			{Ready: true, Nodes: []placement.Node{
				{Name: "a", Allocatable: placement.Resources{MilliCPU: 4000, Memory: 8 * gi, Pods: 110}, Requested: res(3000, 4)},
				{Name: "cordoned", Allocatable: res(4000, 8), Unschedulable: true},
				{Name: "full", Allocatable: res(2000, 8), Requested: res(2000, 2)},
			}},
			{Ready: false, Nodes: []placement.Node{{Name: "gone", Allocatable: res(4000, 8)}}},
		},
		Cloud:        &Cloud{Phase: Ready},
		CloudPending: []placement.Resources{big},
	}
	want := Observation{
		Capacity:      placement.Resources{MilliCPU: 6000, Memory: 16 * gi, Pods: 111},
		Free:          []placement.Resources{{MilliCPU: 1000, Memory: 4 * gi, Pods: 109}},
		Demand:        placement.Resources{MilliCPU: 5*500 + 2*3000, Memory: 5*gi + 8*gi, Pods: 7},
		Sizes:         []Size{{Requests: small, Count: 5}},
		Unschedulable: []placement.Resources{small, big},
		Cloud:         &Cloud{Phase: Ready},
	}
	if diff := cmp.Diff(want, Observe(in)); diff != "" {
		t.Errorf("Observe (-want +got):\n%s", diff)
	}
}

// TestMixIgnoresExtendedResources checks that a replica asking for
// ephemeral-storage or a GPU still gets a node: a flavor declares only CPU,
// memory and pods, and the provisioner sizes against that alone.
func TestMixIgnoresExtendedResources(t *testing.T) {
	flavors := config(Reactive).Flavors
	pod := placement.Resources{MilliCPU: 500, Memory: gi, Pods: 1, Scalar: map[corev1.ResourceName]int64{corev1.ResourceEphemeralStorage: gi}}
	m, unfit := cheapestMix([]placement.Resources{pod}, flavors)
	if len(unfit) != 0 || len(m.groups(flavors)) == 0 {
		t.Errorf("cheapestMix(a pod with ephemeral-storage) = %v, unfit %v; want one node for it", m.groups(flavors), unfit)
	}
}
