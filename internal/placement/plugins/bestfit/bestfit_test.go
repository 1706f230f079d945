package bestfit

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
		cluster("big", 16000, 64*gi),
		cluster("medium", 8000, 16*gi),
		cluster("small", 2000, 4*gi),
	}, nil, nil)
	tests := []struct {
		name string
		req  placement.Resources
		want []int64 // in the snapshot's order: big, medium, small
	}{
		// Rooms: 32, 16, 4: the least room scores highest.
		{name: "least room first", req: placement.Resources{MilliCPU: 500, Memory: gi / 2, Pods: 1}, want: []int64{0, 57, 100}},
		// Rooms: 110, 110, 110.
		{name: "equal rooms all score the most", req: placement.Resources{Pods: 1}, want: []int64{100, 100, 100}},
	}
	p := &BestFit{}
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
