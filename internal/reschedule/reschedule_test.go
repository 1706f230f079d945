package reschedule

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func free(milli ...int64) []placement.Resources {
	out := make([]placement.Resources, len(milli))
	for i, m := range milli {
		out[i] = placement.Resources{MilliCPU: m, Memory: 1 << 40, Pods: 100}
	}
	return out
}

var latency = placement.Latency{
	"rennes": {"nantes": 2 * time.Millisecond, "lille": 23 * time.Millisecond, "nancy": 25 * time.Millisecond},
}

func TestPlan(t *testing.T) {
	one := placement.Resources{MilliCPU: 1000, Memory: 1 << 30, Pods: 1}
	tests := []struct {
		name      string
		clusters  []Cluster
		workloads []Workload
		want      []Move
	}{
		{
			name:     "cloud first, then the farthest substitute, as room allows",
			clusters: []Cluster{{Name: "rennes", Free: free(1500, 1200)}, {Name: "nantes"}, {Name: "lille"}, {Name: "nancy", Cloud: true}},
			workloads: []Workload{{
				Key: "a", Requests: one, Preferred: []string{"rennes"},
				Running: map[string]int32{"rennes": 1, "nantes": 2, "lille": 1, "nancy": 1},
			}},
			want: []Move{{Workload: "a", From: "nancy", To: "rennes", Replicas: 1}, {Workload: "a", From: "lille", To: "rennes", Replicas: 1}},
		},
		{
			name:     "fragmented room is not room",
			clusters: []Cluster{{Name: "rennes", Free: free(600, 600)}, {Name: "nancy", Cloud: true}},
			workloads: []Workload{{
				Key: "a", Requests: one, Preferred: []string{"rennes"}, Running: map[string]int32{"nancy": 2},
			}},
		},
		{
			name:     "a second preferred cluster takes what the first cannot",
			clusters: []Cluster{{Name: "rennes", Free: free(1000)}, {Name: "nantes", Free: free(3000)}, {Name: "nancy", Cloud: true}},
			workloads: []Workload{{
				Key: "a", Requests: one, Preferred: []string{"rennes", "nantes"}, Running: map[string]int32{"nancy": 3},
			}},
			want: []Move{{Workload: "a", From: "nancy", To: "rennes", Replicas: 1}, {Workload: "a", From: "nancy", To: "nantes", Replicas: 2}},
		},
		{
			name:     "room reserved by one workload is not given to the next",
			clusters: []Cluster{{Name: "rennes", Free: free(1000)}, {Name: "nancy", Cloud: true}},
			workloads: []Workload{
				{Key: "a", Requests: one, Preferred: []string{"rennes"}, Running: map[string]int32{"nancy": 1}},
				{Key: "b", Requests: one, Preferred: []string{"rennes"}, Running: map[string]int32{"nancy": 1}},
			},
			want: []Move{{Workload: "a", From: "nancy", To: "rennes", Replicas: 1}},
		},
		{
			name:     "no preferred cluster, nothing to pull back",
			clusters: []Cluster{{Name: "rennes", Free: free(8000)}, {Name: "nancy", Cloud: true}},
			workloads: []Workload{{
				Key: "a", Requests: one, Running: map[string]int32{"nancy": 5},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Plan(tc.clusters, tc.workloads, latency)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRemovalOrder(t *testing.T) {
	tests := []struct {
		name      string
		current   map[string]int32
		preferred []string
		want      []string
	}{
		{
			name:      "cloud, far substitute, near substitute, preferred",
			current:   map[string]int32{"rennes": 2, "nantes": 1, "lille": 1, "nancy": 3},
			preferred: []string{"rennes"},
			want:      []string{"nancy", "lille", "nantes", "rennes"},
		},
		{
			name:      "least preferred first among preferred",
			current:   map[string]int32{"rennes": 2, "nantes": 1, "lille": 0},
			preferred: []string{"rennes", "nantes"},
			want:      []string{"nantes", "rennes"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RemovalOrder(tc.current, tc.preferred, map[string]bool{"nancy": true}, latency)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("RemovalOrder (-want +got):\n%s", diff)
			}
		})
	}
}
