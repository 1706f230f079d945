package placement

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWorkloadValidate(t *testing.T) {
	valid := func() *Workload {
		return &Workload{Key: "web/app", Kind: KindDeployment, Replicas: 3, PodRequests: res(500, 1, 1), Policy: PolicyWorstFit}
	}
	tests := []struct {
		name   string
		mutate func(w *Workload)
		// want are the fragments the error must contain; none means valid.
		want []string
	}{
		{name: "valid", mutate: func(*Workload) {}},
		{name: "zero replicas is valid", mutate: func(w *Workload) { w.Replicas = 0 }},
		{name: "empty kind is valid", mutate: func(w *Workload) { w.Kind = "" }},
		{name: "negative replicas", mutate: func(w *Workload) { w.Replicas = -1 }, want: []string{"replicas: Invalid value: -1"}},
		{name: "unknown policy", mutate: func(w *Workload) { w.Policy = "Cheapest" }, want: []string{`policy: Unsupported value: "Cheapest"`, `"ClusterAffinity"`}},
		{name: "missing policy", mutate: func(w *Workload) { w.Policy = "" }, want: []string{"policy: Required value"}},
		{name: "cluster affinity without locations", mutate: func(w *Workload) { w.Policy = PolicyClusterAffinity }, want: []string{"locations: Required value"}},
		{name: "negative numberOfLocations", mutate: func(w *Workload) { w.NumberOfLocations = -2 }, want: []string{"numberOfLocations: Invalid value: -2"}},
		{name: "duplicate location", mutate: func(w *Workload) { w.Locations = []string{"a", "b", "a"} }, want: []string{`locations[2]: Duplicate value: "a"`}},
		{name: "empty location", mutate: func(w *Workload) { w.Locations = []string{""} }, want: []string{"locations[0]: Required value"}},
		{name: "unknown kind", mutate: func(w *Workload) { w.Kind = "StatefulSet" }, want: []string{`kind: Unsupported value: "StatefulSet"`}},
		{name: "missing key", mutate: func(w *Workload) { w.Key = "" }, want: []string{"key: Required value"}},
		{name: "negative request", mutate: func(w *Workload) { w.PodRequests.MilliCPU = -5 }, want: []string{"podRequests.milliCPU: Invalid value: -5"}},
		{name: "negative current", mutate: func(w *Workload) { w.Current = map[string]int32{"lille": -1} }, want: []string{"current[lille]: Invalid value: -1"}},
		{name: "latency limit from a location", mutate: func(w *Workload) { w.MaxLatency, w.Locations = 50*time.Millisecond, []string{"a"} }},
		{name: "latency limit without origin", mutate: func(w *Workload) { w.MaxLatency = 50 * time.Millisecond }, want: []string{"latencyOrigin: Required value"}},
		{name: "negative latency limit", mutate: func(w *Workload) { w.MaxLatency = -time.Second }, want: []string{`maxLatency: Invalid value: "-1s"`}},
		{name: "empty jurisdiction", mutate: func(w *Workload) { w.Jurisdictions = []string{"EU", ""} }, want: []string{"jurisdictions[1]: Required value"}},
		{
			name:   "every bad field is named",
			mutate: func(w *Workload) { w.Replicas, w.NumberOfLocations = -1, -1 },
			want:   []string{"replicas: Invalid value", "numberOfLocations: Invalid value"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := valid()
			tc.mutate(w)
			err := w.Validate()
			if diff := cmp.Diff(len(tc.want) > 0, err != nil); diff != "" {
				t.Fatalf("Validate() = %v; error mismatch (-want +got):\n%s", err, diff)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrInvalidWorkload) {
				t.Errorf("Validate() = %v, want it to wrap ErrInvalidWorkload", err)
			}
			for _, frag := range tc.want {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("Validate() = %q, want it to contain %q", err, frag)
				}
			}
		})
	}
}
