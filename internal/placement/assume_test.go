package placement

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestAssumptions(t *testing.T) {
	w := &Workload{Key: "web/app", PodRequests: res(1000, 1, 1), Current: map[string]int32{"lille": 2, "nancy": 1}}
	a := NewAssumptions()
	a.Assume(w, &Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 5}, {Cluster: "rennes", Replicas: 3}}})

	type row struct {
		Cluster string
		Assumed int32
	}
	check := func(step string, want []row) {
		t.Helper()
		var got []row
		for _, c := range []string{"lille", "nancy", "rennes"} {
			got = append(got, row{c, a.Assumed(w.Key, c)})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Assumed() mismatch (-want +got):\n%s", step, diff)
		}
	}
	check("after Assume", []row{{"lille", 3}, {"nancy", 0}, {"rennes", 3}})

	a.Observe(w.Key, "lille", 4)
	check("after lille shows 4", []row{{"lille", 1}, {"nancy", 0}, {"rennes", 3}})

	a.Observe(w.Key, "lille", 4) // idempotent
	a.Observe(w.Key, "rennes", 3)
	check("after rennes shows 3", []row{{"lille", 1}, {"nancy", 0}, {"rennes", 0}})

	// A re-placement that takes a replica back from lille.
	w.Current = map[string]int32{"lille": 5, "rennes": 3}
	a.Assume(w, &Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 4}, {Cluster: "rennes", Replicas: 3}}})
	check("after scaling lille down", []row{{"lille", 0}, {"nancy", 0}, {"rennes", 0}})

	w.Current = map[string]int32{"lille": 4, "rennes": 3}
	a.Assume(w, &Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 6}, {Cluster: "rennes", Replicas: 3}}})
	check("after scaling lille up", []row{{"lille", 2}, {"nancy", 0}, {"rennes", 0}})

	a.Forget(w.Key)
	check("after Forget", []row{{"lille", 0}, {"nancy", 0}, {"rennes", 0}})
}

func TestApplyAssumptions(t *testing.T) {
	dedicated := taint("dedicated", "db", corev1.TaintEffectNoSchedule)
	clusters := []Cluster{{Name: "lille", Nodes: []Node{
		{Name: "tainted", Allocatable: res(4000, 16, 110), Taints: []corev1.Taint{dedicated}},
		{Name: "a", Allocatable: res(2500, 16, 110)},
		{Name: "b", Allocatable: res(4000, 16, 110)},
	}}}
	a := NewAssumptions()
	a.Assume(&Workload{Key: "web/app", PodRequests: res(1000, 1, 1)}, &Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 5}, {Cluster: "gone", Replicas: 1}}})
	a.Assume(&Workload{Key: "web/db", PodRequests: res(2000, 2, 1), Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}},
		&Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 1}}})
	s := NewSnapshot(clusters, nil, nil)
	s.ApplyAssumptions(a)

	c := s.Cluster("lille")
	// web/app packs first fit on a (2) then b (3), skipping the tainted
	// node; web/db tolerates the taint and goes first fit to it.
	want := []Resources{res(2000, 14, 109), res(500, 14, 108), res(1000, 13, 107)}
	if diff := cmp.Diff(want, c.Free); diff != "" {
		t.Errorf("Free mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(res(3500, 41, 324), c.TotalFree); diff != "" {
		t.Errorf("TotalFree mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(int32(1), c.FitCount(res(1000, 1, 1), nil)); diff != "" {
		t.Errorf("FitCount() after assumptions mismatch (-want +got):\n%s", diff)
	}
}

func TestApplyAssumptionsOvercommitted(t *testing.T) {
	a := NewAssumptions()
	a.Assume(&Workload{Key: "web/app", PodRequests: res(1000, 1, 1)}, &Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 5}}})
	s := NewSnapshot([]Cluster{{Name: "lille", Nodes: freeNodes(2, 2000, 16)}}, nil, nil)
	s.ApplyAssumptions(a)
	// Four fit; the fifth still takes what it can, so nothing looks free.
	want := []Resources{res(0, 13, 107), res(0, 14, 108)}
	if diff := cmp.Diff(want, s.Cluster("lille").Free); diff != "" {
		t.Errorf("Free mismatch (-want +got):\n%s", diff)
	}
}

// TestAssumptionsConcurrent uses one Assumptions from many goroutines; run
// with -race it checks the locking.
func TestAssumptionsConcurrent(t *testing.T) {
	a := NewAssumptions()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			w := &Workload{Key: fmt.Sprintf("web/app-%d", i), PodRequests: res(100, 0, 1)}
			for j := range 100 {
				a.Assume(w, &Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: int32(j + 1)}}})
				a.Observe(w.Key, "lille", int32(j))
				s := NewSnapshot([]Cluster{{Name: "lille", Nodes: freeNodes(1, 4000, 4)}}, nil, nil)
				s.ApplyAssumptions(a)
				_ = a.Assumed(w.Key, "lille")
			}
		})
	}
	wg.Wait()
	for i := range 8 {
		if got := a.Assumed(fmt.Sprintf("web/app-%d", i), "lille"); got != 1 {
			t.Errorf("Assumed(web/app-%d) = %d, want 1", i, got)
		}
	}
}

func TestAssumptionsRefresh(t *testing.T) {
	w := &Workload{Key: "web/app", PodRequests: res(1000, 1, 1)}
	a := NewAssumptions()
	a.Assume(w, &Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 5}, {Cluster: "rennes", Replicas: 3}}})

	var asked []string
	a.Refresh(func(key, cluster string) int32 {
		asked = append(asked, key+"@"+cluster)
		return map[string]int32{"lille": 4, "rennes": 3}[cluster]
	})
	got := map[string]int32{"lille": a.Assumed(w.Key, "lille"), "rennes": a.Assumed(w.Key, "rennes")}
	if diff := cmp.Diff(map[string]int32{"lille": 1, "rennes": 0}, got); diff != "" {
		t.Errorf("Assumed() after Refresh (-want +got):\n%s", diff)
	}
	if len(asked) != 2 {
		t.Errorf("Refresh asked %v, want the two outstanding clusters only", asked)
	}
	a.Refresh(func(string, string) int32 { return 5 })
	asked = nil
	a.Refresh(func(key, cluster string) int32 { asked = append(asked, key+"@"+cluster); return 0 })
	if len(asked) != 0 || a.Assumed(w.Key, "lille") != 0 {
		t.Errorf("after everything was visible, Refresh asked %v and Assumed(lille) = %d; want nothing outstanding", asked, a.Assumed(w.Key, "lille"))
	}
}

// TestAssumptionsTurn has many decisions, each in its own goroutine, take
// the one pod of room a cluster of ten has left whenever its snapshot shows
// some: taking turns, exactly ten succeed; without the turn, two on one
// snapshot would both take the same room.
func TestAssumptionsTurn(t *testing.T) {
	a := NewAssumptions()
	var wg sync.WaitGroup
	var mu sync.Mutex
	placed := 0
	for i := range 40 {
		wg.Go(func() {
			done := a.Turn()
			defer done()
			s := NewSnapshot([]Cluster{{Name: "lille", Nodes: freeNodes(1, 1000, 16)}}, nil, nil)
			s.ApplyAssumptions(a)
			if s.Cluster("lille").FitCount(res(100, 0, 1), nil) == 0 {
				return
			}
			runtime.Gosched() // let another decision build its snapshot now
			a.Assume(&Workload{Key: fmt.Sprintf("web/app-%d", i), PodRequests: res(100, 0, 1)},
				&Decision{Assignments: []Assignment{{Cluster: "lille", Replicas: 1}}})
			mu.Lock()
			placed++
			mu.Unlock()
		})
	}
	wg.Wait()
	if placed != 10 {
		t.Errorf("%d decisions placed a pod in room for 10", placed)
	}
}
