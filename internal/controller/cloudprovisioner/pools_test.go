package cloudprovisioner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
)

// TestRetireAndAdopt: a pool the backend found that the flavors no longer
// list is asked for as Retired, with no more workers than it has or was
// last asked for; a cluster adopted below minNodes is padded with the
// cheapest flavor.
func TestRetireAndAdopt(t *testing.T) {
	flavors := []provision.Flavor{
		{Name: "large", Allocatable: placement.Resources{MilliCPU: 4000, Memory: 1, Pods: 1}, PricePerHour: money.New(resource.MustParse("0.4"), "USD")},
		{Name: "small", Allocatable: placement.Resources{MilliCPU: 2000, Memory: 1, Pods: 1}, PricePerHour: money.New(resource.MustParse("0.1"), "USD")},
	}
	tests := []struct {
		name     string
		st       cloud.Status
		recorded []multiclusterv1alpha1.NodePoolStatus
		want     []cloud.Pool
	}{
		{
			name: "listed pools only",
			st:   cloud.Status{Pools: []cloud.PoolStatus{{Name: "large", Workers: 1}}},
			want: []cloud.Pool{{Name: "large"}, {Name: "small"}},
		},
		{
			name: "a removed pool is retired with what it has",
			st:   cloud.Status{Pools: []cloud.PoolStatus{{Name: "large"}, {Name: "old", Workers: 3, Removed: true}}},
			want: []cloud.Pool{{Name: "large"}, {Name: "small"}, {Name: "old", Workers: 3, Retired: true}},
		},
		{
			name:     "a retired pool keeps what drains left it",
			st:       cloud.Status{Pools: []cloud.PoolStatus{{Name: "old", Workers: 3, Removed: true}}},
			recorded: []multiclusterv1alpha1.NodePoolStatus{{Name: "old", DesiredNodes: 1, Removed: true}},
			want:     []cloud.Pool{{Name: "large"}, {Name: "small"}, {Name: "old", Workers: 1, Retired: true}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := cloud.Spec{Pools: []cloud.Pool{{Name: "large"}, {Name: "small"}}}
			retire(&spec, tc.st, tc.recorded)
			if diff := cmp.Diff(tc.want, spec.Pools); diff != "" {
				t.Errorf("pools (-want +got):\n%s", diff)
			}
		})
	}

	// Of two flavors of one price the provisioner pads with the smaller,
	// whatever their order; adopt pads the same pool.
	samePrice := []provision.Flavor{
		{Name: "large", Allocatable: placement.Resources{MilliCPU: 4000, Memory: 1, Pods: 1}, PricePerHour: money.New(resource.MustParse("0.1"), "USD")},
		{Name: "small", Allocatable: placement.Resources{MilliCPU: 2000, Memory: 1, Pods: 1}, PricePerHour: money.New(resource.MustParse("0.1"), "USD")},
	}
	adoptions := []struct {
		name    string
		flavors []provision.Flavor
		st      cloud.Status
		want    []cloud.Pool
	}{
		{
			name:    "padded with the cheapest flavor, retired pools not counted",
			flavors: flavors,
			st:      cloud.Status{Pools: []cloud.PoolStatus{{Name: "large", Workers: 1}}},
			want:    []cloud.Pool{{Name: "large", Workers: 1}, {Name: "small", Workers: 2}, {Name: "old", Retired: true, Workers: 2}},
		},
		{
			name:    "of one price, padded with the smaller flavor as the provisioner pads",
			flavors: samePrice,
			st:      cloud.Status{Pools: []cloud.PoolStatus{{Name: "large", Workers: 1}}},
			want:    []cloud.Pool{{Name: "large", Workers: 1}, {Name: "small", Workers: 2}, {Name: "old", Retired: true, Workers: 2}},
		},
		{
			name:    "at minNodes already",
			flavors: flavors,
			st:      cloud.Status{Pools: []cloud.PoolStatus{{Name: "large", Workers: 2}, {Name: "small", Workers: 1}}},
			want:    []cloud.Pool{{Name: "large", Workers: 2}, {Name: "small", Workers: 1}, {Name: "old", Retired: true, Workers: 2}},
		},
	}
	for _, tc := range adoptions {
		t.Run(tc.name, func(t *testing.T) {
			spec := cloud.Spec{Pools: []cloud.Pool{{Name: "large"}, {Name: "small"}, {Name: "old", Retired: true, Workers: 2}}}
			adopt(&spec, tc.st, 3, tc.flavors)
			if diff := cmp.Diff(tc.want, spec.Pools); diff != "" {
				t.Errorf("adopted pools (-want +got):\n%s", diff)
			}
			pad, _ := provision.Config{Flavors: tc.flavors}.PadFlavor()
			if pad.Name != "small" {
				t.Errorf("PadFlavor = %q, want %q", pad.Name, "small")
			}
		})
	}
}
