package worstfit

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

const gi = 1 << 30

// cluster returns a cluster of one node with the free CPU and memory.
func cluster(name string, milli, mem int64) placement.Cluster {
	return placement.Cluster{Name: name, Nodes: []placement.Node{{Name: "n", Allocatable: placement.Resources{MilliCPU: milli, Memory: mem, Pods: 110}}}}
}

func TestScore(t *testing.T) {
	s := placement.NewSnapshot([]placement.Cluster{
		cluster("cpu-rich", 16000, 2*gi),
		cluster("mem-rich", 2000, 64*gi),
		cluster("balanced", 8000, 16*gi),
		cluster("full", 0, 0),
	}, nil, nil)
	tests := []struct {
		name string
		req  placement.Resources
		want []int64 // in the snapshot's order: balanced, cpu-rich, full, mem-rich
	}{
		// Rooms: 16, 32, 0, 4 replicas of 500m: CPU-rich has the most.
		{name: "CPU-bound workload ranks by CPU", req: placement.Resources{MilliCPU: 500, Pods: 1}, want: []int64{50, 100, 0, 12}},
		// Rooms: 8, 1, 0, 32 replicas of 2Gi.
		{name: "memory-bound workload ranks by memory", req: placement.Resources{Memory: 2 * gi, Pods: 1}, want: []int64{25, 3, 0, 100}},
		// Rooms: min(16, 8)=8, min(32, 1)=1, 0, min(4, 32)=4.
		{name: "both count, the scarcer binds", req: placement.Resources{MilliCPU: 500, Memory: 2 * gi, Pods: 1}, want: []int64{100, 12, 0, 50}},
		// Rooms are the free pod slots: all 110 but the full one's.
		{name: "no request ranks by pod slots", req: placement.Resources{Pods: 1}, want: []int64{100, 100, 100, 100}},
	}
	p := &WorstFit{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &placement.Workload{PodRequests: tc.req}
			got := make([]int64, len(s.Clusters))
			for i, c := range s.Clusters {
				v, st := p.Score(t.Context(), w, c, s)
				if !st.IsSuccess() {
					t.Fatalf("Score() status = %+v", st)
				}
				got[i] = v
			}
			if st := p.NormalizeScore(t.Context(), w, s.Clusters, got); !st.IsSuccess() {
				t.Fatalf("NormalizeScore() status = %+v", st)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
