package placement

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
)

// sameSnapshot compares two snapshots' clusters, derived fields included.
func sameSnapshot(want, got *Snapshot) string {
	return cmp.Diff(want.Clusters, got.Clusters, cmp.AllowUnexported(ClusterInfo{}), cmpopts.IgnoreFields(ClusterInfo{}, "shared", "generation"))
}

func TestSnapshotsNew(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	gpuNode := Node{Name: "g", Allocatable: Resources{MilliCPU: 2000, Memory: 4 * gi, Pods: 110, Scalar: map[corev1.ResourceName]int64{gpu: 2}}}
	lille := Cluster{Name: "lille", Ready: true, Nodes: append(freeNodes(2, 4000, 16), gpuNode)}
	busyLille := lille
	busyLille.Nodes = append(freeNodes(2, 4000, 16), gpuNode)
	busyLille.Nodes[0].Requested = res(3000, 8, 3)
	nantes := Cluster{Name: "nantes", Ready: true, Nodes: freeNodes(3, 8000, 32)}
	downNantes := nantes
	downNantes.Ready = false

	type build struct {
		clusters    []Cluster
		generations []uint64
		// shared names the clusters whose free resources must be the
		// previous snapshot's.
		shared []string
	}
	tests := []struct {
		name   string
		builds []build
	}{
		{
			name: "unchanged generations share, changed ones derive again",
			builds: []build{
				{clusters: []Cluster{lille, nantes}, generations: []uint64{1, 2}},
				{clusters: []Cluster{busyLille, nantes}, generations: []uint64{3, 2}, shared: []string{"nantes"}},
				{clusters: []Cluster{busyLille, nantes}, generations: []uint64{3, 2}, shared: []string{"lille", "nantes"}},
			},
		},
		{
			name: "generation zero always derives again",
			builds: []build{
				{clusters: []Cluster{lille, nantes}, generations: []uint64{0, 2}},
				{clusters: []Cluster{busyLille, nantes}, generations: []uint64{0, 2}, shared: []string{"nantes"}},
				{clusters: []Cluster{lille, nantes}},
			},
		},
		{
			name: "a description change keeps the nodes but shows",
			builds: []build{
				{clusters: []Cluster{lille, nantes}, generations: []uint64{1, 2}},
				{clusters: []Cluster{lille, downNantes}, generations: []uint64{1, 2}, shared: []string{"lille", "nantes"}},
			},
		},
		{
			name: "a cluster that leaves and comes back derives again",
			builds: []build{
				{clusters: []Cluster{lille, nantes}, generations: []uint64{1, 2}},
				{clusters: []Cluster{nantes}, generations: []uint64{2}, shared: []string{"nantes"}},
				{clusters: []Cluster{lille, nantes}, generations: []uint64{1, 2}, shared: []string{"nantes"}},
			},
		},
		{
			name: "the same generation with another number of nodes derives again",
			builds: []build{
				{clusters: []Cluster{lille}, generations: []uint64{1}},
				{clusters: []Cluster{{Name: "lille", Nodes: freeNodes(1, 4000, 16)}}, generations: []uint64{1}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &Snapshots{}
			var prev *Snapshot
			for i, bd := range tc.builds {
				got := b.New(bd.clusters, bd.generations, nil, nil)
				if diff := sameSnapshot(NewSnapshot(bd.clusters, nil, nil), got); diff != "" {
					t.Errorf("build %d: New() differs from NewSnapshot() (-want +got):\n%s", i, diff)
				}
				var shared []string
				for _, c := range got.Clusters {
					if p := prev.clusterOrNil(c.Name); p != nil && len(c.Free) > 0 && &p.Free[0] == &c.Free[0] {
						shared = append(shared, c.Name)
					}
				}
				if diff := cmp.Diff(bd.shared, shared); diff != "" {
					t.Errorf("build %d: clusters sharing the previous free resources (-want +got):\n%s", i, diff)
				}
				prev = got
			}
		})
	}
}

func (s *Snapshot) clusterOrNil(name string) *ClusterInfo {
	if s == nil {
		return nil
	}
	return s.Cluster(name)
}

// TestSnapshotsCopyOnWrite checks that reserving assumed replicas in one
// snapshot changes neither the snapshot it shares nodes with nor the ones
// built after it.
func TestSnapshotsCopyOnWrite(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	nodes := freeNodes(2, 4000, 16)
	nodes[1].Allocatable.Scalar = map[corev1.ResourceName]int64{gpu: 4}
	clusters := []Cluster{{Name: "lille", Ready: true, Nodes: nodes}, {Name: "nantes", Ready: true, Nodes: freeNodes(2, 4000, 16)}}
	gens := []uint64{7, 8}
	fresh := NewSnapshot(clusters, nil, nil)

	a := NewAssumptions()
	a.Assume(&Workload{Key: "web/gpu", PodRequests: Resources{MilliCPU: 1000, Memory: gi, Pods: 1, Scalar: map[corev1.ResourceName]int64{gpu: 1}}},
		&Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 6}}})

	b := &Snapshots{}
	first := b.New(clusters, gens, nil, nil)
	second := b.New(clusters, gens, nil, nil)
	second.ApplyAssumptions(a)
	third := b.New(clusters, gens, nil, nil)

	if diff := sameSnapshot(fresh, first); diff != "" {
		t.Errorf("the snapshot built before changed (-want +got):\n%s", diff)
	}
	if diff := sameSnapshot(fresh, third); diff != "" {
		t.Errorf("the snapshot built after changed (-want +got):\n%s", diff)
	}
	want := NewSnapshot(clusters, nil, nil)
	want.ApplyAssumptions(a)
	if diff := sameSnapshot(want, second); diff != "" {
		t.Errorf("the snapshot with assumptions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(int32(2), second.Cluster("lille").FitCount(res(1000, 1, 1), nil)); diff != "" {
		t.Errorf("FitCount() with assumptions mismatch (-want +got):\n%s", diff)
	}
	if &second.Cluster("nantes").Free[0] != &third.Cluster("nantes").Free[0] {
		t.Error("a cluster without assumptions stopped sharing its free resources")
	}
}

// TestSnapshotsConcurrent builds snapshots with assumptions while others
// read earlier ones, for the race detector.
func TestSnapshotsConcurrent(t *testing.T) {
	clusters := []Cluster{{Name: "lille", Ready: true, Nodes: freeNodes(50, 4000, 16)}}
	b := &Snapshots{}
	a := NewAssumptions()
	a.Assume(&Workload{Key: "web/app", PodRequests: res(500, 1, 1)}, &Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 40}}})
	want := NewSnapshot(clusters, nil, nil).Cluster("lille").FitCount(res(500, 1, 1), nil)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 4 {
		wg.Go(func() {
			for range 50 {
				plain := b.New(clusters, []uint64{1}, nil, nil)
				assumed := b.New(clusters, []uint64{1}, nil, nil)
				assumed.ApplyAssumptions(a)
				if got := plain.Cluster("lille").FitCount(res(500, 1, 1), nil); got != want {
					errs <- cmp.Diff(want, got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for diff := range errs {
		t.Errorf("FitCount() of a snapshot without assumptions mismatch (-want +got):\n%s", diff)
	}
}
