package latencylimit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestFilter(t *testing.T) {
	latency := placement.Latency{"paris": {"frankfurt": 9 * time.Millisecond, "virginia": 80 * time.Millisecond}}
	clusters := []placement.Cluster{{Name: "paris"}, {Name: "frankfurt"}, {Name: "virginia"}, {Name: "tokyo"}}
	type result struct {
		Code   placement.Code
		Reason string
	}
	tests := []struct {
		name string
		w    placement.Workload
		want map[string]result // clusters not listed pass
	}{
		{name: "no limit", w: placement.Workload{}},
		{
			name: "within the limit from the origin, in either direction",
			w:    placement.Workload{MaxLatency: 50 * time.Millisecond, LatencyOrigin: "frankfurt"},
			want: map[string]result{
				"virginia": {placement.UnschedulableAndUnresolvable, "the round-trip time from frankfurt is unknown, and the workload allows at most 50ms"},
				"tokyo":    {placement.UnschedulableAndUnresolvable, "the round-trip time from frankfurt is unknown, and the workload allows at most 50ms"},
			},
		},
		{
			name: "the origin defaults to the first location",
			w:    placement.Workload{MaxLatency: 50 * time.Millisecond, Locations: []string{"paris"}},
			want: map[string]result{
				"virginia": {placement.UnschedulableAndUnresolvable, "the round-trip time from paris is 80ms, over the workload's limit of 50ms"},
				"tokyo":    {placement.UnschedulableAndUnresolvable, "the round-trip time from paris is unknown, and the workload allows at most 50ms"},
			},
		},
		{
			name: "the limit is inclusive",
			w:    placement.Workload{MaxLatency: 80 * time.Millisecond, LatencyOrigin: "paris"},
			want: map[string]result{
				"tokyo": {placement.UnschedulableAndUnresolvable, "the round-trip time from paris is unknown, and the workload allows at most 80ms"},
			},
		},
	}
	p := &LatencyLimit{}
	s := placement.NewSnapshot(clusters, latency, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]result{}
			for _, c := range s.Clusters {
				if st := p.Filter(t.Context(), &tc.w, c); !st.IsSuccess() {
					if st.Plugin != Name {
						t.Errorf("Filter(%s).Plugin = %q, want %q", c.Name, st.Plugin, Name)
					}
					got[c.Name] = result{st.Code, st.Reason}
				}
			}
			want := tc.want
			if want == nil {
				want = map[string]result{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Filter() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
