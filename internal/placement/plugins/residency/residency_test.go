package residency

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestFilter(t *testing.T) {
	clusters := []placement.Cluster{
		{Name: "frankfurt", Jurisdiction: "DE"},
		{Name: "zurich", Jurisdiction: "CH"},
		{Name: "california", Jurisdiction: "US-CA"},
		{Name: "virginia", Jurisdiction: "US"},
		{Name: "lab"},
	}
	tests := []struct {
		name          string
		jurisdictions []string
		want          map[string]string // rejected cluster -> reason
	}{
		{name: "no residency: anywhere"},
		{
			name:          "EU covers its member states only",
			jurisdictions: []string{"EU"},
			want: map[string]string{
				"zurich":     "the cluster is in jurisdiction CH, and the workload's data must stay in EU",
				"california": "the cluster is in jurisdiction US-CA, and the workload's data must stay in EU",
				"virginia":   "the cluster is in jurisdiction US, and the workload's data must stay in EU",
				"lab":        "the cluster declares no jurisdiction (spec.jurisdiction), and the workload's data must stay in EU",
			},
		},
		{
			name:          "a country covers its subdivisions, not the reverse",
			jurisdictions: []string{"US", "CH"},
			want: map[string]string{
				"frankfurt": "the cluster is in jurisdiction DE, and the workload's data must stay in US, CH",
				"lab":       "the cluster declares no jurisdiction (spec.jurisdiction), and the workload's data must stay in US, CH",
			},
		},
		{
			name:          "a subdivision admits itself only",
			jurisdictions: []string{"US-CA"},
			want: map[string]string{
				"frankfurt": "the cluster is in jurisdiction DE, and the workload's data must stay in US-CA",
				"zurich":    "the cluster is in jurisdiction CH, and the workload's data must stay in US-CA",
				"virginia":  "the cluster is in jurisdiction US, and the workload's data must stay in US-CA",
				"lab":       "the cluster declares no jurisdiction (spec.jurisdiction), and the workload's data must stay in US-CA",
			},
		},
	}
	p := &Residency{}
	s := placement.NewSnapshot(clusters, nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &placement.Workload{Jurisdictions: tc.jurisdictions}
			got := map[string]string{}
			for _, c := range s.Clusters {
				if st := p.Filter(t.Context(), w, c); !st.IsSuccess() {
					if st.Code != placement.UnschedulableAndUnresolvable || st.Plugin != Name {
						t.Errorf("Filter(%s) = %+v, want UnschedulableAndUnresolvable from %s", c.Name, st, Name)
					}
					got[c.Name] = st.Reason
				}
			}
			want := tc.want
			if want == nil {
				want = map[string]string{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Filter() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
