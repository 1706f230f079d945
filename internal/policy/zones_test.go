package policy

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRegionZones(t *testing.T) {
	e, err := New(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	regions, err := e.RegionZones(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	zones, err := e.GridZones(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"azure/westeurope", regions["azure/westeurope"], "NL"},
		{"azure/norwayeast", regions["azure/norwayeast"], "NO-NO1"},
		{"zones include NL", slices.Contains(zones, "NL"), true},
		{"zones are sorted and distinct", zones, slices.Compact(slices.Sorted(slices.Values(zones)))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
