package testbed

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPlanWorkers(t *testing.T) {
	tests := []struct {
		name   string
		nodes  []string
		count  int
		remove []string
		want   NodeChange
	}{
		{
			name:  "from none",
			nodes: []string{"c-node-1"},
			count: 3,
			want:  NodeChange{Created: []string{"c-worker-1", "c-worker-2", "c-worker-3"}, Workers: []string{"c-worker-1", "c-worker-2", "c-worker-3"}},
		},
		{
			name:  "as many as asked",
			nodes: []string{"c-worker-1", "c-worker-2"},
			count: 2,
			want:  NodeChange{Workers: []string{"c-worker-1", "c-worker-2"}},
		},
		{
			name:   "named removal first, then the highest",
			nodes:  []string{"c-worker-1", "c-worker-2", "c-worker-3"},
			count:  1,
			remove: []string{"c-worker-2"},
			want:   NodeChange{Deleted: []string{"c-worker-2", "c-worker-3"}, Workers: []string{"c-worker-1"}},
		},
		{
			name:  "highest first without names",
			nodes: []string{"c-worker-1", "c-worker-2", "c-worker-10"},
			count: 1,
			want:  NodeChange{Deleted: []string{"c-worker-10", "c-worker-2"}, Workers: []string{"c-worker-1"}},
		},
		{
			name:   "named removal when growing, and its name does not come back",
			nodes:  []string{"c-worker-1", "c-worker-2"},
			count:  3,
			remove: []string{"c-worker-1"},
			want:   NodeChange{Deleted: []string{"c-worker-1"}, Created: []string{"c-worker-3", "c-worker-4"}, Workers: []string{"c-worker-2", "c-worker-3", "c-worker-4"}},
		},
		{
			name:   "a name already gone is no work",
			nodes:  []string{"c-worker-2"},
			count:  1,
			remove: []string{"c-worker-1"},
			want:   NodeChange{Workers: []string{"c-worker-2"}},
		},
		{
			name:  "gaps are filled",
			nodes: []string{"c-worker-1", "c-worker-3"},
			count: 3,
			want:  NodeChange{Created: []string{"c-worker-2"}, Workers: []string{"c-worker-1", "c-worker-2", "c-worker-3"}},
		},
		{
			name:  "other clusters' and profile nodes are not workers",
			nodes: []string{"c-node-1", "cc-worker-1", "c-worker-01", "c-worker-x"},
			count: 0,
			want:  NodeChange{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := planWorkers("c", tc.nodes, tc.count, tc.remove)
			if diff := cmp.Diff(tc.want, *got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("planWorkers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWorkerAddress(t *testing.T) {
	tests := []struct {
		index, n int
		want     string
	}{
		{index: 3, n: 1, want: "172.17.3.1"},
		{index: 3, n: 254, want: "172.17.3.254"},
		{index: 3, n: 255, want: "172.18.3.1"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, workerAddress(tc.index, tc.n)); diff != "" {
			t.Errorf("workerAddress(%d, %d) (-want +got):\n%s", tc.index, tc.n, diff)
		}
	}
}

func TestPlanGroup(t *testing.T) {
	tests := []struct {
		name   string
		group  string
		nodes  []string
		count  int
		remove []string
		want   NodeChange
	}{
		{
			name:  "numbers are unique across the groups",
			group: "big",
			nodes: []string{"c-node-1", "c-worker-1", "c-small-2", "c-big-3"},
			count: 2,
			want:  NodeChange{Created: []string{"c-big-4"}, Workers: []string{"c-big-3", "c-big-4"}},
		},
		{
			name:   "only the group's workers go",
			group:  "small",
			nodes:  []string{"c-worker-1", "c-small-2", "c-small-3", "c-big-4"},
			count:  0,
			remove: []string{"c-small-3"},
			want:   NodeChange{Deleted: []string{"c-small-3", "c-small-2"}},
		},
		{
			name:  "the group \"\" is the workers of SetNodes",
			nodes: []string{"c-small-1", "c-worker-2"},
			count: 2,
			want:  NodeChange{Created: []string{"c-worker-3"}, Workers: []string{"c-worker-2", "c-worker-3"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := planGroup("c", tc.group, tc.nodes, tc.count, tc.remove)
			if diff := cmp.Diff(tc.want, *got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("planGroup (-want +got):\n%s", diff)
			}
		})
	}
}
