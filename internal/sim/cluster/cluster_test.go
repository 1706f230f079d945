package cluster

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

const gi = int64(1) << 30

func res(milli, memGi int64) placement.Resources {
	return placement.Resources{MilliCPU: milli, Memory: memGi * gi, Pods: 1}
}

func node(name string, milli, memGi int64) *Node {
	return NewNode(name, placement.Resources{MilliCPU: milli, Memory: memGi * gi, Pods: 110})
}

// placementOf is where each pod is: a node name, or "Pending".
func placementOf(pods []*Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		switch {
		case p.Cluster == nil:
			out[i] = "Gone"
		case p.Node == nil:
			out[i] = "Pending"
		default:
			out[i] = p.Node.Name
		}
	}
	return out
}

func TestScheduler(t *testing.T) {
	tests := []struct {
		name    string
		scoring Scoring
		nodes   []*Node
		pods    []placement.Resources
		// then deletes these pod indexes, in order
		deletes []int
		want    []string
	}{
		{
			name:  "least allocated spreads pods",
			nodes: []*Node{node("n1", 2000, 4), node("n2", 2000, 4)},
			pods:  []placement.Resources{res(500, 1), res(500, 1), res(500, 1)},
			want:  []string{"n1", "n2", "n1"},
		},
		{
			name:    "most allocated packs pods onto the fullest node that fits",
			scoring: MostAllocated,
			nodes:   []*Node{node("n1", 2000, 4), node("n2", 2000, 4), node("n3", 4000, 8)},
			pods:    []placement.Resources{res(500, 1), res(500, 1), res(500, 1), res(500, 1), res(500, 1), res(1500, 2)},
			want:    []string{"n1", "n1", "n1", "n1", "n2", "n2"},
		},
		{
			name:  "fragmentation leaves a pod pending although the total is free",
			nodes: []*Node{node("n1", 2000, 4), node("n2", 2000, 4)},
			pods:  []placement.Resources{res(1200, 1), res(1200, 1), res(1500, 1)},
			want:  []string{"n1", "n2", "Pending"},
		},
		{
			name:    "a pending pod binds when room frees, oldest first",
			nodes:   []*Node{node("n1", 2000, 4)},
			pods:    []placement.Resources{res(1500, 1), res(1000, 1), res(500, 1)},
			deletes: []int{0},
			want:    []string{"Gone", "n1", "n1"},
		},
		{
			name:  "memory counts as much as CPU",
			nodes: []*Node{node("n1", 4000, 2)},
			pods:  []placement.Resources{res(100, 1), res(100, 2)},
			want:  []string{"n1", "Pending"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New("c", tc.nodes...)
			c.Scoring = tc.scoring
			pods := make([]*Pod, len(tc.pods))
			for i, r := range tc.pods {
				pods[i] = &Pod{ID: int64(i), Requests: r}
				c.AddPod(pods[i])
			}
			for _, i := range tc.deletes {
				c.DeletePod(pods[i])
			}
			if diff := cmp.Diff(tc.want, placementOf(pods)); diff != "" {
				t.Errorf("placement (-want +got):\n%s", diff)
			}
			var assigned int64
			for _, p := range pods {
				if p.Cluster != nil {
					assigned += p.Requests.MilliCPU
				}
			}
			if got := c.Assigned().MilliCPU; got != assigned {
				t.Errorf("Assigned().MilliCPU = %d, want %d", got, assigned)
			}
		})
	}
}

func TestNodes(t *testing.T) {
	c := New("c", node("n1", 1000, 4))
	a := &Pod{ID: 1, Requests: res(800, 1)}
	b := &Pod{ID: 2, Requests: res(800, 1)}
	c.AddPod(a)
	c.AddPod(b)
	c.AddNode(node("n2", 1000, 4))
	if diff := cmp.Diff([]string{"n1", "n2"}, placementOf([]*Pod{a, b})); diff != "" {
		t.Fatalf("after AddNode (-want +got):\n%s", diff)
	}
	evicted := c.RemoveNode("n2")
	if diff := cmp.Diff([]string{"Gone"}, placementOf(evicted)); diff != "" {
		t.Errorf("evicted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(res(800, 1), c.Assigned()); diff != "" {
		t.Errorf("Assigned after RemoveNode (-want +got):\n%s", diff)
	}
}
