package placement

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// spec is a cluster for the division tests: one node with room for fit
// replicas of one CPU, and the stub score of the cluster.
type spec struct {
	name  string
	fit   int64
	score int64
	cloud bool
}

// stubFramework builds a framework whose WorstFit and ClusterAffinity
// profiles filter with a stub that rejects the clusters in reject and score
// with the specs' scores, and a snapshot of the specs.
func stubFramework(t *testing.T, specs []spec, reject map[string]string) (*Framework, *Snapshot) {
	t.Helper()
	scores := make(map[string]int64)
	clusters := make([]Cluster, len(specs))
	for i, sp := range specs {
		scores[sp.name] = sp.score
		clusters[i] = Cluster{Name: sp.name, Ready: true, Cloud: sp.cloud, Nodes: []Node{{Name: "n", Allocatable: res(1000*sp.fit, 64, 110)}}}
	}
	reg := Registry{
		"filter": factory(&stubFilter{name: "filter", reject: reject}),
		"score":  factory(&stubScore{name: "score", scores: scores, fail: "broken"}),
	}
	profile := func(p Policy) Profile {
		return Profile{Policy: p, Filters: []string{"filter"}, Scores: []WeightedPlugin{{Name: "score", Weight: 1}}}
	}
	f, err := NewFramework(reg, profile(PolicyWorstFit), profile(PolicyClusterAffinity))
	if err != nil {
		t.Fatalf("NewFramework() = %v", err)
	}
	return f, NewSnapshot(clusters, nil, nil)
}

func workload(replicas int32, mutate ...func(*Workload)) *Workload {
	w := &Workload{Key: "web/app", Replicas: replicas, PodRequests: res(1000, 1, 1), Policy: PolicyWorstFit}
	for _, m := range mutate {
		m(w)
	}
	return w
}

func bursting(w *Workload)     { w.Bursting = true }
func substitution(w *Workload) { w.Substitution = true }
func spreadOver(k int32) func(*Workload) {
	return func(w *Workload) { w.NumberOfLocations = k }
}
func current(c map[string]int32) func(*Workload) {
	return func(w *Workload) { w.Current = c }
}
func affinityTo(locations ...string) func(*Workload) {
	return func(w *Workload) { w.Policy, w.Locations = PolicyClusterAffinity, locations }
}

func TestPlaceDivides(t *testing.T) {
	abc := []spec{{name: "a", fit: 3, score: 90}, {name: "b", fit: 10, score: 50}, {name: "c", fit: 10, score: 10}}
	tests := []struct {
		name         string
		specs        []spec
		reject       map[string]string
		w            *Workload
		want         []Assignment
		wantUnplaced int32
	}{
		{
			name:  "all replicas go to the highest-scored cluster that holds them all",
			specs: abc, w: workload(5),
			want: []Assignment{{Cluster: "b", Replicas: 5, Role: RoleSelected}},
		},
		{
			name:  "the highest-scored cluster when it holds them all",
			specs: abc, w: workload(3),
			want: []Assignment{{Cluster: "a", Replicas: 3, Role: RoleSelected}},
		},
		{
			name:  "without overflow the first cluster takes what it holds and the rest is unplaced",
			specs: []spec{{name: "a", fit: 3, score: 90}, {name: "b", fit: 4, score: 50}}, w: workload(10),
			want:         []Assignment{{Cluster: "a", Replicas: 3, Role: RoleSelected}},
			wantUnplaced: 7,
		},
		{
			name:  "bursting overflows in order, each cluster up to what it holds",
			specs: []spec{{name: "a", fit: 3, score: 90}, {name: "b", fit: 4, score: 50}, {name: "c", fit: 5, score: 10}}, w: workload(10, bursting),
			want: []Assignment{{Cluster: "a", Replicas: 3, Role: RoleSelected}, {Cluster: "b", Replicas: 4, Role: RoleBurst}, {Cluster: "c", Replicas: 3, Role: RoleBurst}},
		},
		{
			name:  "bursting places what fits anywhere and reports the rest",
			specs: []spec{{name: "a", fit: 3, score: 90}, {name: "b", fit: 4, score: 50}}, w: workload(10, bursting),
			want:         []Assignment{{Cluster: "a", Replicas: 3, Role: RoleSelected}, {Cluster: "b", Replicas: 4, Role: RoleBurst}},
			wantUnplaced: 3,
		},
		{
			name:  "cloud clusters come last whatever their score",
			specs: []spec{{name: "cloud", fit: 100, score: 100, cloud: true}, {name: "a", fit: 2, score: 10}}, w: workload(5, bursting),
			want: []Assignment{{Cluster: "a", Replicas: 2, Role: RoleSelected}, {Cluster: "cloud", Replicas: 3, Role: RoleBurst}},
		},
		{
			name:  "a cloud cluster is used when nothing else holds the workload",
			specs: []spec{{name: "cloud", fit: 100, score: 100, cloud: true}, {name: "a", fit: 2, score: 10}}, w: workload(5),
			want: []Assignment{{Cluster: "cloud", Replicas: 5, Role: RoleBurst}},
		},
		{
			name:  "ties go to the first name",
			specs: []spec{{name: "b", fit: 5, score: 50}, {name: "a", fit: 5, score: 50}}, w: workload(2),
			want: []Assignment{{Cluster: "a", Replicas: 2, Role: RoleSelected}},
		},
		{
			name:  "fits nowhere",
			specs: []spec{{name: "a", fit: 0, score: 50}}, w: workload(4, bursting),
			wantUnplaced: 4,
		},
		{
			name:  "filtered clusters get nothing",
			specs: abc, reject: map[string]string{"b": "no"}, w: workload(5),
			want: []Assignment{{Cluster: "c", Replicas: 5, Role: RoleSelected}},
		},
		{
			name:  "a full cluster keeps what it runs and the overflow moves on",
			specs: abc, w: workload(5, bursting, current(map[string]int32{"a": 3}), func(w *Workload) { w.Full = map[string]bool{"a": true} }),
			want: []Assignment{{Cluster: "a", Replicas: 3, Role: RoleSelected}, {Cluster: "b", Replicas: 2, Role: RoleBurst}},
		},
		{
			name:  "zero replicas",
			specs: abc, w: workload(0),
		},
		{
			name:  "numberOfLocations spreads in proportion to what each cluster holds",
			specs: []spec{{name: "a", fit: 6, score: 90}, {name: "b", fit: 2, score: 50}, {name: "c", fit: 10, score: 10}}, w: workload(4, spreadOver(2)),
			want: []Assignment{{Cluster: "a", Replicas: 3, Role: RoleSelected}, {Cluster: "b", Replicas: 1, Role: RoleSelected}},
		},
		{
			name:  "numberOfLocations rounds by largest remainder, ties in order",
			specs: []spec{{name: "a", fit: 1, score: 90}, {name: "b", fit: 1, score: 50}, {name: "c", fit: 1, score: 10}}, w: workload(2, spreadOver(3)),
			want: []Assignment{{Cluster: "a", Replicas: 1, Role: RoleSelected}, {Cluster: "b", Replicas: 1, Role: RoleSelected}},
		},
		{
			name:  "numberOfLocations with fewer replicas than locations",
			specs: []spec{{name: "a", fit: 10, score: 90}, {name: "b", fit: 30, score: 50}}, w: workload(1, spreadOver(2)),
			want: []Assignment{{Cluster: "b", Replicas: 1, Role: RoleSelected}},
		},
		{
			name:  "numberOfLocations with more replicas than the clusters hold overflows when bursting",
			specs: []spec{{name: "a", fit: 2, score: 90}, {name: "b", fit: 2, score: 50}, {name: "c", fit: 5, score: 10}}, w: workload(7, spreadOver(2), bursting),
			want: []Assignment{{Cluster: "a", Replicas: 2, Role: RoleSelected}, {Cluster: "b", Replicas: 2, Role: RoleSelected}, {Cluster: "c", Replicas: 3, Role: RoleBurst}},
		},
		{
			name:  "numberOfLocations with more replicas than the clusters hold and no overflow",
			specs: []spec{{name: "a", fit: 2, score: 90}, {name: "b", fit: 2, score: 50}, {name: "c", fit: 5, score: 10}}, w: workload(7, spreadOver(2)),
			want:         []Assignment{{Cluster: "a", Replicas: 2, Role: RoleSelected}, {Cluster: "b", Replicas: 2, Role: RoleSelected}},
			wantUnplaced: 3,
		},
		{
			name:  "numberOfLocations keeps the clusters the workload runs in",
			specs: []spec{{name: "a", fit: 4, score: 90}, {name: "b", fit: 4, score: 50}, {name: "c", fit: 2, score: 10}}, w: workload(8, spreadOver(2), current(map[string]int32{"c": 2})),
			want: []Assignment{{Cluster: "a", Replicas: 4, Role: RoleSelected}, {Cluster: "c", Replicas: 4, Role: RoleSelected}},
		},
		{
			name:  "current replicas stay rather than move to a better cluster",
			specs: abc, w: workload(3, current(map[string]int32{"c": 3})),
			want: []Assignment{{Cluster: "c", Replicas: 3, Role: RoleSelected}},
		},
		{
			name:  "a full cluster keeps the replicas it runs",
			specs: []spec{{name: "a", fit: 10, score: 90}, {name: "c", fit: 0, score: 10}}, w: workload(3, current(map[string]int32{"c": 3})),
			want: []Assignment{{Cluster: "c", Replicas: 3, Role: RoleSelected}},
		},
		{
			name:  "a scale-up grows where the workload runs when there is room",
			specs: abc, w: workload(8, current(map[string]int32{"c": 3})),
			want: []Assignment{{Cluster: "c", Replicas: 8, Role: RoleSelected}},
		},
		{
			name:  "a scale-up overflows from where the workload runs when bursting",
			specs: []spec{{name: "a", fit: 10, score: 90}, {name: "c", fit: 1, score: 10}}, w: workload(6, bursting, current(map[string]int32{"c": 3})),
			want: []Assignment{{Cluster: "a", Replicas: 2, Role: RoleBurst}, {Cluster: "c", Replicas: 4, Role: RoleSelected}},
		},
		{
			name:  "a scale-up without overflow stays where the workload runs",
			specs: []spec{{name: "a", fit: 10, score: 90}, {name: "c", fit: 1, score: 10}}, w: workload(6, current(map[string]int32{"c": 3})),
			want:         []Assignment{{Cluster: "c", Replicas: 4, Role: RoleSelected}},
			wantUnplaced: 2,
		},
		{
			name:  "a scale-up fills member clusters before the cloud cluster the workload runs in",
			specs: []spec{{name: "cloud", fit: 10, score: 100, cloud: true}, {name: "a", fit: 0, score: 90}, {name: "b", fit: 2, score: 10}}, w: workload(6, bursting, current(map[string]int32{"a": 2, "cloud": 1})),
			want: []Assignment{{Cluster: "a", Replicas: 2, Role: RoleSelected}, {Cluster: "b", Replicas: 2, Role: RoleBurst}, {Cluster: "cloud", Replicas: 2, Role: RoleBurst}},
		},
		{
			name:  "a scale-down releases cloud clusters first",
			specs: []spec{{name: "cloud", fit: 10, score: 100, cloud: true}, {name: "a", fit: 0, score: 10}}, w: workload(3, current(map[string]int32{"a": 2, "cloud": 3})),
			want: []Assignment{{Cluster: "a", Replicas: 2, Role: RoleSelected}, {Cluster: "cloud", Replicas: 1, Role: RoleBurst}},
		},
		{
			name:  "a scale-down releases the lowest-scored clusters first",
			specs: abc, w: workload(4, current(map[string]int32{"a": 3, "c": 3})),
			want: []Assignment{{Cluster: "a", Replicas: 3, Role: RoleSelected}, {Cluster: "c", Replicas: 1, Role: RoleSelected}},
		},
		{
			name:  "replicas in a cluster that is now filtered out move",
			specs: abc, reject: map[string]string{"c": "gone"}, w: workload(3, current(map[string]int32{"c": 3, "gone": 2})),
			want: []Assignment{{Cluster: "a", Replicas: 3, Role: RoleSelected}},
		},
		{
			name:  "affinity: preferred then substitutes",
			specs: []spec{{name: "a", fit: 3, score: 100}, {name: "b", fit: 10, score: 50}}, w: workload(5, affinityTo("a"), substitution),
			want: []Assignment{{Cluster: "b", Replicas: 5, Role: RoleSubstitute}},
		},
		{
			name:  "affinity with bursting: the overflow is a burst",
			specs: []spec{{name: "a", fit: 3, score: 100}, {name: "b", fit: 1, score: 50}, {name: "c", fit: 1, score: 40}}, w: workload(5, affinityTo("a"), bursting),
			want: []Assignment{{Cluster: "a", Replicas: 3, Role: RolePreferred}, {Cluster: "b", Replicas: 1, Role: RoleBurst}, {Cluster: "c", Replicas: 1, Role: RoleBurst}},
		},
		{
			name:  "affinity with substitution: the overflow is a substitute",
			specs: []spec{{name: "a", fit: 3, score: 100}, {name: "b", fit: 1, score: 50}, {name: "c", fit: 1, score: 40}}, w: workload(5, affinityTo("a"), substitution),
			want: []Assignment{{Cluster: "a", Replicas: 3, Role: RolePreferred}, {Cluster: "b", Replicas: 1, Role: RoleSubstitute}, {Cluster: "c", Replicas: 1, Role: RoleSubstitute}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, s := stubFramework(t, tc.specs, tc.reject)
			d, err := f.Place(t.Context(), s, tc.w)
			if err != nil {
				t.Fatalf("Place() = %v", err)
			}
			if diff := cmp.Diff(tc.want, d.Assignments); diff != "" {
				t.Errorf("Place() assignments mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantUnplaced, d.Unplaced); diff != "" {
				t.Errorf("Place() unplaced mismatch (-want +got):\n%s", diff)
			}
			var placed int32
			for _, a := range d.Assignments {
				placed += a.Replicas
			}
			if placed+d.Unplaced != tc.w.Replicas {
				t.Errorf("Place() placed %d and left %d unplaced of %d replicas", placed, d.Unplaced, tc.w.Replicas)
			}
		})
	}
}

func TestPlaceExplains(t *testing.T) {
	f, s := stubFramework(t, []spec{{name: "a", fit: 3, score: 90}, {name: "b", fit: 10, score: 50}}, map[string]string{"a": "cluster a is closed"})
	d, err := f.Place(t.Context(), s, workload(4))
	if err != nil {
		t.Fatalf("Place() = %v", err)
	}
	want := &Decision{
		Assignments: []Assignment{{Cluster: "b", Replicas: 4, Role: RoleSelected}},
		Clusters: []ClusterResult{
			{Cluster: "a", Filter: &Status{Code: UnschedulableAndUnresolvable, Plugin: "filter", Reason: "cluster a is closed"}},
			{Cluster: "b", Fit: 10, Scores: []PluginScore{{Plugin: "score", Score: 50}}, Total: 50},
		},
	}
	if diff := cmp.Diff(want, d, cmpopts.IgnoreUnexported(Decision{})); diff != "" {
		t.Errorf("Place() mismatch (-want +got):\n%s", diff)
	}
}

// outOfRange is a score plugin that breaks the score contract.
type outOfRange struct{}

func (outOfRange) Name() string { return "outofrange" }

func (outOfRange) Score(context.Context, *Workload, *ClusterInfo, *Snapshot) (int64, *Status) {
	return MaxScore + 1, nil
}

func TestPlaceErrors(t *testing.T) {
	f, s := stubFramework(t, []spec{{name: "a", fit: 3}, {name: "broken", fit: 3}}, nil)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	bad, err := NewFramework(Registry{"outofrange": factory(outOfRange{})}, Profile{Policy: PolicyWorstFit, Scores: []WeightedPlugin{{Name: "outofrange", Weight: 1}}})
	if err != nil {
		t.Fatalf("NewFramework() = %v", err)
	}
	tests := []struct {
		name    string
		f       *Framework
		ctx     context.Context
		w       *Workload
		wantErr error
	}{
		{name: "invalid workload", f: f, ctx: t.Context(), w: workload(-1), wantErr: ErrInvalidWorkload},
		{name: "policy without a profile", f: f, ctx: t.Context(), w: workload(1, func(w *Workload) { w.Policy = PolicyBestFit }), wantErr: ErrUnknownPolicy},
		{name: "cancelled context", f: f, ctx: cancelled, w: workload(1), wantErr: context.Canceled},
		{name: "score plugin fails", f: f, ctx: t.Context(), w: workload(1), wantErr: ErrPluginFailed},
		{name: "score out of range", f: bad, ctx: t.Context(), w: workload(1), wantErr: ErrPluginFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := s
			if tc.name != "score plugin fails" {
				s = NewSnapshot([]Cluster{{Name: "a", Nodes: freeNodes(1, 4000, 4)}}, nil, nil)
			}
			d, err := tc.f.Place(tc.ctx, s, tc.w)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Place() = %v, %v; want error %v", d, err, tc.wantErr)
			}
		})
	}
}

// TestPlaceConcurrent places on one snapshot from many goroutines; run with
// -race it checks that Place only reads shared state.
func TestPlaceConcurrent(t *testing.T) {
	specs := make([]spec, 20)
	for i := range specs {
		specs[i] = spec{name: fmt.Sprintf("c%02d", i), fit: int64(i % 5), score: int64(i * 5)}
	}
	f, s := stubFramework(t, specs, nil)
	want, err := f.Place(t.Context(), s, workload(12, bursting))
	if err != nil {
		t.Fatalf("Place() = %v", err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 50 {
				got, err := f.Place(t.Context(), s, workload(12, bursting))
				if err != nil {
					errs <- err
					return
				}
				if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Decision{})); diff != "" {
					errs <- fmt.Errorf("concurrent Place() mismatch (-want +got):\n%s", diff)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
