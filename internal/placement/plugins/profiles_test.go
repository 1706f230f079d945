package plugins

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins/fit"
)

const gi = 1 << 30

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// tableII is Table II of seed 001: round-trip times between the Grid'5000
// sites, one direction only (Latency.Between looks both ways).
var tableII = placement.Latency{
	"rennes":     {"nantes": ms(2.16), "lille": ms(23.26), "luxembourg": ms(27.41), "nancy": ms(25.18), "grenoble": ms(17.45)},
	"nantes":     {"lille": ms(22.21), "luxembourg": ms(26.29), "nancy": ms(24.16), "grenoble": ms(16.38)},
	"lille":      {"luxembourg": ms(11.88), "nancy": ms(9.70), "grenoble": ms(12.06)},
	"luxembourg": {"nancy": ms(2.90), "grenoble": ms(15.33)},
	"nancy":      {"grenoble": ms(13.14)},
}

// site is a cluster of seed 001's testbed: five worker nodes, each with
// room for free replicas of one CPU.
type site struct {
	name  string
	free  int64 // replicas of 1 CPU / 1Gi free per node
	cloud bool
}

func snapshot(sites []site, traffic map[string]map[string]float64) *placement.Snapshot {
	var clusters []placement.Cluster
	for _, s := range sites {
		nodes := make([]placement.Node, 5)
		for i := range nodes {
			nodes[i] = placement.Node{
				Name:        fmt.Sprintf("%s-%d", s.name, i),
				Allocatable: placement.Resources{MilliCPU: 4000, Memory: 16 * gi, Pods: 110},
				Requested:   placement.Resources{MilliCPU: 4000 - 1000*s.free, Memory: 16*gi - s.free*gi, Pods: 10},
			}
		}
		clusters = append(clusters, placement.Cluster{Name: s.name, Ready: true, Cloud: s.cloud, Nodes: nodes})
	}
	return placement.NewSnapshot(clusters, tableII, traffic)
}

// grid5000 is the testbed with the free room per node of each member
// cluster given in order rennes, nantes, lille, grenoble, luxembourg; the
// cloud cluster in nancy always has room (4 per node).
func grid5000(rennes, nantes, lille, grenoble, luxembourg int64) []site {
	return []site{
		{name: "rennes", free: rennes}, {name: "nantes", free: nantes}, {name: "lille", free: lille},
		{name: "grenoble", free: grenoble}, {name: "luxembourg", free: luxembourg}, {name: "nancy", free: 4, cloud: true},
	}
}

func oneCPU(key string, replicas int32, policy placement.Policy, mutate ...func(*placement.Workload)) *placement.Workload {
	w := &placement.Workload{Key: key, Replicas: replicas, Policy: policy, PodRequests: placement.Resources{MilliCPU: 1000, Memory: gi, Pods: 1}}
	for _, m := range mutate {
		m(w)
	}
	return w
}

func preferring(l ...string) func(*placement.Workload) {
	return func(w *placement.Workload) { w.Locations = l }
}
func substitution(w *placement.Workload) { w.Substitution = true }
func bursting(w *placement.Workload)     { w.Bursting = true }

func place(t *testing.T, s *placement.Snapshot, w *placement.Workload) *placement.Decision {
	t.Helper()
	f, err := NewFramework()
	if err != nil {
		t.Fatalf("NewFramework() = %v", err)
	}
	d, err := f.Place(t.Context(), s, w)
	if err != nil {
		t.Fatalf("Place() = %v", err)
	}
	return d
}

type outcome struct {
	Assignments []placement.Assignment
	Unplaced    int32
}

func TestPolicies(t *testing.T) {
	tests := []struct {
		name    string
		sites   []site
		traffic map[string]float64
		w       *placement.Workload
		want    outcome
	}{
		{
			name:  "affinity: the preferred cluster when it has room",
			sites: grid5000(1, 4, 4, 4, 4), w: oneCPU("app", 5, placement.PolicyClusterAffinity, preferring("rennes"), substitution),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "rennes", Replicas: 5, Role: placement.RolePreferred}}},
		},
		{
			name:  "affinity: a full preferred cluster is substituted by the nearest (Nantes, 2.16 ms)",
			sites: grid5000(0, 4, 4, 4, 4), w: oneCPU("app", 5, placement.PolicyClusterAffinity, preferring("rennes"), substitution),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "nantes", Replicas: 5, Role: placement.RoleSubstitute}}},
		},
		{
			name:  "affinity: then the next nearest (Grenoble, 17.45 ms)",
			sites: grid5000(0, 0, 4, 4, 4), w: oneCPU("app", 5, placement.PolicyClusterAffinity, preferring("rennes"), substitution),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "grenoble", Replicas: 5, Role: placement.RoleSubstitute}}},
		},
		{
			name:  "affinity: the cloud cluster in Nancy (25.18 ms) comes after Luxembourg (27.41 ms)",
			sites: grid5000(0, 0, 0, 0, 4), w: oneCPU("app", 5, placement.PolicyClusterAffinity, preferring("rennes"), substitution),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "luxembourg", Replicas: 5, Role: placement.RoleSubstitute}}},
		},
		{
			name:  "affinity: the cloud cluster when every member cluster is full",
			sites: grid5000(0, 0, 0, 0, 0), w: oneCPU("app", 5, placement.PolicyClusterAffinity, preferring("rennes"), substitution),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "nancy", Replicas: 5, Role: placement.RoleBurst}}},
		},
		{
			name:  "affinity: a substitute that holds every replica beats splitting them",
			sites: grid5000(1, 1, 4, 4, 4), w: oneCPU("app", 12, placement.PolicyClusterAffinity, preferring("rennes"), substitution),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "grenoble", Replicas: 12, Role: placement.RoleSubstitute}}},
		},
		{
			name:  "affinity: when no cluster holds every replica, the preferred one keeps what it holds and the overflow goes nearest first",
			sites: grid5000(1, 1, 2, 2, 2), w: oneCPU("app", 12, placement.PolicyClusterAffinity, preferring("rennes"), substitution),
			want: outcome{Assignments: []placement.Assignment{
				{Cluster: "rennes", Replicas: 5, Role: placement.RolePreferred},
				{Cluster: "nantes", Replicas: 5, Role: placement.RoleSubstitute},
				{Cluster: "grenoble", Replicas: 2, Role: placement.RoleSubstitute},
			}},
		},
		{
			name:  "affinity: every preferred cluster, in the user's order, before any substitute",
			sites: grid5000(4, 4, 0, 4, 4), w: oneCPU("app", 5, placement.PolicyClusterAffinity, preferring("lille", "rennes"), substitution),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "rennes", Replicas: 5, Role: placement.RolePreferred}}},
		},
		{
			name:  "affinity: substitutes are nearest to the first preferred cluster",
			sites: grid5000(0, 4, 0, 4, 4), w: oneCPU("app", 5, placement.PolicyClusterAffinity, preferring("lille", "rennes"), substitution),
			// From Lille: Luxembourg 11.88, Grenoble 12.06, Nantes 22.21.
			want: outcome{Assignments: []placement.Assignment{{Cluster: "luxembourg", Replicas: 5, Role: placement.RoleSubstitute}}},
		},
		{
			name:  "affinity without substitution or bursting: a full preferred cluster leaves the replicas unplaced",
			sites: grid5000(0, 4, 4, 4, 4), w: oneCPU("app", 5, placement.PolicyClusterAffinity, preferring("rennes")),
			want: outcome{Unplaced: 5},
		},
		{
			name:  "traffic-aware: the busiest cluster",
			sites: grid5000(4, 4, 4, 4, 4), traffic: map[string]float64{"lille": 30, "nantes": 10},
			w:    oneCPU("app", 5, placement.PolicyTrafficAware),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "lille", Replicas: 5, Role: placement.RoleSelected}}},
		},
		{
			// Seed 001, Fig. 9: the application bursts from cluster 2
			// (Nantes) successively to clusters 1, 4, 3, 5, then the cloud.
			name:  "traffic-aware with bursting: nearest first from the busiest cluster, cloud last (seed 001 Fig. 9)",
			sites: grid5000(1, 1, 1, 1, 1), traffic: map[string]float64{"nantes": 50},
			w: oneCPU("app", 27, placement.PolicyTrafficAware, bursting),
			want: outcome{Assignments: []placement.Assignment{
				{Cluster: "nantes", Replicas: 5, Role: placement.RoleSelected},
				{Cluster: "rennes", Replicas: 5, Role: placement.RoleBurst},
				{Cluster: "grenoble", Replicas: 5, Role: placement.RoleBurst},
				{Cluster: "lille", Replicas: 5, Role: placement.RoleBurst},
				{Cluster: "luxembourg", Replicas: 5, Role: placement.RoleBurst},
				{Cluster: "nancy", Replicas: 2, Role: placement.RoleBurst},
			}},
		},
		{
			// Seed 001, experiment VI-C: the backend moves to the cluster
			// whose front end now receives the traffic.
			name:  "traffic-aware: replicas follow their traffic",
			sites: grid5000(4, 4, 4, 4, 4), traffic: map[string]float64{"lille": 30, "nantes": 1},
			w:    oneCPU("app", 4, placement.PolicyTrafficAware, func(w *placement.Workload) { w.Current = map[string]int32{"nantes": 2} }),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "lille", Replicas: 4, Role: placement.RoleSelected}}},
		},
		{
			name:  "worst-fit: replicas stay where they run",
			sites: grid5000(4, 1, 4, 4, 4), w: oneCPU("app", 4, placement.PolicyWorstFit, func(w *placement.Workload) { w.Current = map[string]int32{"nantes": 2} }),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "nantes", Replicas: 4, Role: placement.RoleSelected}}},
		},
		{
			name:  "worst-fit: the cluster with the most room",
			sites: grid5000(1, 2, 3, 2, 1), w: oneCPU("app", 2, placement.PolicyWorstFit),
			want: outcome{Assignments: []placement.Assignment{{Cluster: "lille", Replicas: 2, Role: placement.RoleSelected}}},
		},
		{
			name:  "best-fit: the tightest cluster that holds every replica",
			sites: grid5000(1, 2, 3, 2, 1), w: oneCPU("app", 8, placement.PolicyBestFit),
			// Rooms: rennes 5, luxembourg 5 (too small), grenoble 10, nantes 10: grenoble by name.
			want: outcome{Assignments: []placement.Assignment{{Cluster: "grenoble", Replicas: 8, Role: placement.RoleSelected}}},
		},
		{
			name:  "best-fit with bursting fills the tightest cluster first",
			sites: grid5000(1, 3, 3, 3, 0), w: oneCPU("app", 20, placement.PolicyBestFit, bursting),
			// Rooms: rennes 5, then grenoble, lille, nantes 15 each (ties by name).
			want: outcome{Assignments: []placement.Assignment{
				{Cluster: "rennes", Replicas: 5, Role: placement.RoleSelected},
				{Cluster: "grenoble", Replicas: 15, Role: placement.RoleBurst},
			}},
		},
		{
			name:  "numberOfLocations spreads over the roomiest clusters in proportion",
			sites: grid5000(1, 2, 3, 1, 1), w: oneCPU("app", 10, placement.PolicyWorstFit, func(w *placement.Workload) { w.NumberOfLocations = 2 }),
			// Rooms 15 (lille) and 10 (nantes): 6 and 4.
			want: outcome{Assignments: []placement.Assignment{
				{Cluster: "lille", Replicas: 6, Role: placement.RoleSelected},
				{Cluster: "nantes", Replicas: 4, Role: placement.RoleSelected},
			}},
		},
		{
			name:  "unplaced when nothing has room",
			sites: []site{{name: "rennes"}, {name: "nantes"}}, w: oneCPU("app", 3, placement.PolicyWorstFit, bursting),
			want: outcome{Unplaced: 3},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot(tc.sites, map[string]map[string]float64{tc.w.Key: tc.traffic})
			d := place(t, s, tc.w)
			if diff := cmp.Diff(tc.want, outcome{d.Assignments, d.Unplaced}); diff != "" {
				t.Errorf("Place() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(len(tc.sites), len(d.Clusters)); diff != "" {
				t.Errorf("Place() explains a different number of clusters (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFilters(t *testing.T) {
	selector, err := labels.Parse("region=eu")
	if err != nil {
		t.Fatal(err)
	}
	twoCPU := placement.Resources{MilliCPU: 2000, Memory: gi, Pods: 1}
	node := func(name string, cpuFree int64) placement.Node {
		return placement.Node{Name: name, Allocatable: placement.Resources{MilliCPU: cpuFree, Memory: 16 * gi, Pods: 110}}
	}
	var fragmented []placement.Node
	for i := range 10 {
		fragmented = append(fragmented, node(fmt.Sprint(i), 1000))
	}
	clusters := []placement.Cluster{
		{Name: "fragmented", Ready: true, Labels: map[string]string{"region": "eu"}, Nodes: fragmented},
		{Name: "tainted", Ready: true, Labels: map[string]string{"region": "eu"}, Taints: []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}, Nodes: []placement.Node{node("a", 64000)}},
		{Name: "us", Ready: true, Labels: map[string]string{"region": "us"}, Nodes: []placement.Node{node("a", 64000)}},
		{Name: "down", Ready: false, Labels: map[string]string{"region": "eu"}, Nodes: []placement.Node{node("a", 64000)}},
		{Name: "small", Ready: true, Labels: map[string]string{"region": "eu"}, Nodes: []placement.Node{node("a", 4000), node("b", 3000)}},
	}
	w := &placement.Workload{Key: "app", Replicas: 5, Policy: placement.PolicyWorstFit, Bursting: true, PodRequests: twoCPU, ClusterSelector: selector}
	d := place(t, placement.NewSnapshot(clusters, nil, nil), w)

	type row struct {
		Cluster, Plugin, Reason string
		Fit                     int32
	}
	var got []row
	for _, c := range d.Clusters {
		r := row{Cluster: c.Cluster, Fit: c.Fit}
		if c.Filter != nil {
			r.Plugin, r.Reason = c.Filter.Plugin, c.Filter.Reason
		}
		got = append(got, r)
	}
	want := []row{
		{Cluster: "down", Plugin: "ready", Reason: "cluster is not ready: its API server does not answer"},
		{Cluster: "fragmented", Plugin: fit.Name, Reason: "cluster has 10 nodes but none has 2 CPU free (largest free: 1 CPU)"},
		{Cluster: "small", Fit: 3},
		{Cluster: "tainted", Plugin: "taints", Reason: "cluster has taint gpu:NoSchedule that the workload does not tolerate"},
		{Cluster: "us", Plugin: "clusterselector", Reason: `cluster labels do not match the cluster selector "region=eu"`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Place() cluster results mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(outcome{Assignments: []placement.Assignment{{Cluster: "small", Replicas: 3, Role: placement.RoleSelected}}, Unplaced: 2}, outcome{d.Assignments, d.Unplaced}); diff != "" {
		t.Errorf("Place() mismatch (-want +got):\n%s", diff)
	}
}

// TestAssumptionsPreventOvercommit places two workloads back to back, before
// the first one's pods show in the member cluster.
func TestAssumptionsPreventOvercommit(t *testing.T) {
	sites := []site{{name: "rennes", free: 2}, {name: "nantes", free: 4}} // rooms 10 and 20
	first := oneCPU("first", 15, placement.PolicyWorstFit, bursting)
	second := oneCPU("second", 15, placement.PolicyWorstFit, bursting)
	tests := []struct {
		name   string
		assume bool
		want   outcome
	}{
		{
			name:   "with assumptions the second workload sees what the first took",
			assume: true,
			want: outcome{Assignments: []placement.Assignment{
				{Cluster: "rennes", Replicas: 10, Role: placement.RoleSelected},
				{Cluster: "nantes", Replicas: 5, Role: placement.RoleBurst},
			}},
		},
		{
			name:   "without them both would count on nantes",
			assume: false,
			want:   outcome{Assignments: []placement.Assignment{{Cluster: "nantes", Replicas: 15, Role: placement.RoleSelected}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := placement.NewAssumptions()
			s := snapshot(sites, nil)
			s.ApplyAssumptions(a)
			d := place(t, s, first)
			if diff := cmp.Diff([]placement.Assignment{{Cluster: "nantes", Replicas: 15, Role: placement.RoleSelected}}, d.Assignments); diff != "" {
				t.Fatalf("first Place() mismatch (-want +got):\n%s", diff)
			}
			if tc.assume {
				a.Assume(first, d)
			}
			// The member clusters do not show the first workload's pods yet.
			s = snapshot(sites, nil)
			s.ApplyAssumptions(a)
			d = place(t, s, second)
			if diff := cmp.Diff(tc.want, outcome{d.Assignments, d.Unplaced}); diff != "" {
				t.Errorf("second Place() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeterministic places the same workloads on the same clusters given in
// shuffled orders, and expects the same decisions.
func TestDeterministic(t *testing.T) {
	sites := grid5000(1, 2, 2, 1, 3)
	traffic := map[string]map[string]float64{"web": {"lille": 5, "nantes": 5, "rennes": 5}}
	workloads := []*placement.Workload{
		oneCPU("web", 30, placement.PolicyTrafficAware, bursting),
		oneCPU("batch", 30, placement.PolicyWorstFit, bursting, func(w *placement.Workload) { w.NumberOfLocations = 3 }),
		oneCPU("db", 30, placement.PolicyBestFit, bursting),
		oneCPU("api", 30, placement.PolicyClusterAffinity, preferring("lille"), substitution),
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, w := range workloads {
		t.Run(w.Key, func(t *testing.T) {
			want := place(t, snapshot(sites, traffic), w)
			for range 20 {
				shuffled := slices.Clone(sites)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				got := place(t, snapshot(shuffled, traffic), w)
				if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(placement.Decision{})); diff != "" {
					t.Fatalf("Place() on shuffled clusters mismatch (-want +got):\n%s", diff)
				}
				for _, c := range want.Clusters {
					if diff := cmp.Diff(want.LatencyOf(c.Cluster), got.LatencyOf(c.Cluster)); diff != "" {
						t.Fatalf("LatencyOf(%s) on shuffled clusters mismatch (-want +got):\n%s", c.Cluster, diff)
					}
				}
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	for _, p := range Profiles() {
		for _, name := range p.Filters {
			if _, ok := r[name]; !ok {
				t.Errorf("profile %s names filter %q, which the registry lacks", p.Policy, name)
			}
		}
		for _, sc := range p.Scores {
			if _, ok := r[sc.Name]; !ok {
				t.Errorf("profile %s names score plugin %q, which the registry lacks", p.Policy, sc.Name)
			}
		}
	}
	var policies []placement.Policy
	for _, p := range Profiles() {
		policies = append(policies, p.Policy)
	}
	if diff := cmp.Diff(placement.Policies(), policies); diff != "" {
		t.Errorf("Profiles() policies mismatch (-want +got):\n%s", diff)
	}
	for name := range r {
		if err := r.Register(name, r[name]); !errors.Is(err, placement.ErrDuplicatePlugin) {
			t.Errorf("Register(%q) on the full registry = %v, want ErrDuplicatePlugin", name, err)
		}
	}
	if _, err := NewFramework(); err != nil {
		t.Errorf("NewFramework() = %v", err)
	}
}
