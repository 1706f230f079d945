package provision

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

// registered is a node that registered at created, with its readiness and
// whether it is cordoned.
func registered(n NodeState, created time.Duration, ready, cordoned bool) NodeState {
	n.Created = start.Add(created)
	n.Ready, n.Cordoned = ready, cordoned
	return n
}

// TestNodeConditions runs the provisioner in virtual time over cloud nodes
// that are cordoned, draining, joining, broken or of a removed flavor.
func TestNodeConditions(t *testing.T) {
	capacity := placement.Resources{MilliCPU: 70000, Memory: 220 * gi}
	cloud := func(nodes ...NodeState) *Cloud { return &Cloud{Phase: Ready, Nodes: nodes, Workloads: 1} }
	obs := func(c *Cloud, unschedulable ...placement.Resources) Observation {
		return Observation{Capacity: capacity, Unschedulable: unschedulable, Cloud: c}
	}
	// n1 holds 3 CPU; n2 is empty.
	busy := registered(node("n1", 3000, true, cpu(3000)), 0, true, false)
	empty := registered(node("n2", 0, true), 0, true, false)
	draining := func(n NodeState) NodeState { n.Cordoned, n.Draining = true, true; return n }
	flavor := func(n NodeState, f string) NodeState { n.Flavor = f; return n }
	tests := []struct {
		name     string
		minNodes int
		steps    []step
	}{
		{
			name: "a cordoned node's room is not free: what fits only there buys a node",
			steps: []step{
				{0, obs(cloud(busy, registered(node("n2", 0, true), 0, true, true)), cpu(2000)),
					Decision{Action: AddNodes, Add: []NodeGroup{{Flavor: "large", Nodes: 1}}, Reason: "1 replicas unschedulable (0.20 USD/h)"}},
			},
		},
		{
			name: "a cordoned node is neither coming nor consolidated: the empty node still goes",
			steps: []step{
				{0, obs(cloud(busy, empty, registered(node("n3", 0, true), 0, true, true))), Decision{Action: None}},
				{10 * time.Minute, obs(cloud(busy, empty, registered(node("n3", 0, true), 0, true, true))),
					Decision{Action: RemoveNodes, Remove: []string{"n2"}, Reason: "pods fit on the other cloud nodes for 10m0s"}},
			},
		},
		{
			name: "after a restart, an old node that just broke waits the not-ready grace from when it is seen",
			steps: []step{
				// The provisioner starts at 2h: n3 registered at 0 and is
				// NotReady now. It must not count as broken since 15m.
				{2 * time.Hour, obs(cloud(busy, registered(node("n3", 0, false), 0, false, false))), Decision{Action: None}},
				{2*time.Hour + 10*time.Minute, obs(cloud(busy, registered(node("n3", 0, false), 0, false, false))),
					Decision{Action: RemoveNodes, Remove: []string{"n3"}, Reason: "NotReady for 10m0s: removed, and replaced if its pods fit nowhere else"}},
			},
		},
		{
			name: "a registered node not Ready yet is coming for the join grace, then broken, then removed and replaced",
			steps: []step{
				// n3 registered at 0 and never turns Ready: it is coming,
				// so the 2-CPU replica waits for it and nothing goes.
				{0, obs(cloud(busy, empty, registered(node("n3", 0, false), 0, false, false))), Decision{Action: None}},
				{10 * time.Minute, obs(cloud(busy, empty, registered(node("n3", 0, false), 0, false, false)), cpu(2000)), Decision{Action: None}},
				// At 15 minutes the join grace is over: n3 is broken and
				// goes after the not-ready grace.
				{15 * time.Minute, obs(cloud(busy, empty, registered(node("n3", 0, false), 0, false, false))), Decision{Action: None}},
				{24 * time.Minute, obs(cloud(busy, empty, registered(node("n3", 0, false), 0, false, false))), Decision{Action: None}},
				{25 * time.Minute, obs(cloud(busy, empty, registered(node("n3", 0, false), 0, false, false))),
					Decision{Action: RemoveNodes, Remove: []string{"n3"}, Reason: "NotReady for 10m0s: removed, and replaced if its pods fit nowhere else"}},
			},
		},
		{
			name:     "a node that turns NotReady after it was Ready is broken at once: its room is not free and it goes after the grace",
			minNodes: 2,
			steps: []step{
				{0, obs(cloud(busy, empty)), Decision{Action: None}},
				{time.Minute, obs(cloud(busy, registered(node("n2", 0, false), 0, false, false)), cpu(2000)),
					Decision{Action: AddNodes, Add: []NodeGroup{{Flavor: "large", Nodes: 1}}, Reason: "1 replicas unschedulable (0.20 USD/h)"}},
				{5 * time.Minute, obs(cloud(busy, registered(node("n2", 0, false), 0, false, false), registered(node("n4", 0, true), 2*time.Minute, true, false))), Decision{Action: None}},
				{11 * time.Minute, obs(cloud(busy, registered(node("n2", 0, false), 0, false, false), registered(node("n4", 0, true), 2*time.Minute, true, false))),
					Decision{Action: RemoveNodes, Remove: []string{"n2"}, Reason: "NotReady for 10m0s: removed, and replaced if its pods fit nowhere else"}},
			},
		},
		{
			name:     "a broken node removed below minNodes is replaced by the cheapest flavor",
			minNodes: 2,
			steps: []step{
				{0, obs(cloud(flavor(busy, "xlarge"), empty)), Decision{Action: None}},
				{time.Minute, obs(cloud(flavor(busy, "xlarge"), registered(node("n2", 0, false), 0, false, false))),
					Decision{Action: AddNodes, Add: []NodeGroup{{Flavor: "large", Nodes: 1}}, Reason: "minimum nodes (0.20 USD/h)"}},
			},
		},
		{
			name: "one drain at a time, and a node that waits for it keeps its wait",
			steps: []step{
				{0, obs(cloud(registered(node("n1", 1000, true, cpu(1000)), 0, true, false), registered(node("n2", 1000, true, cpu(1000)), 0, true, false), registered(node("n3", 3000, true, cpu(3000)), 0, true, false))), Decision{Action: None}},
				{10 * time.Minute, obs(cloud(registered(node("n1", 1000, true, cpu(1000)), 0, true, false), registered(node("n2", 1000, true, cpu(1000)), 0, true, false), registered(node("n3", 3000, true, cpu(3000)), 0, true, false))),
					Decision{Action: RemoveNodes, Drain: []string{"n1"}, Reason: "pods fit on the other cloud nodes for 10m0s"}},
				{11 * time.Minute, obs(cloud(draining(registered(node("n1", 1000, true, cpu(1000)), 0, true, false)), registered(node("n2", 1000, true, cpu(1000)), 0, true, false), registered(node("n3", 3000, true, cpu(3000)), 0, true, false))), Decision{Action: None}},
			},
		},
		{
			name: "the node that waited during a drain is drained when it ends",
			steps: []step{
				{0, obs(cloud(registered(node("n1", 1000, true, cpu(1000)), 0, true, false), registered(node("n2", 1000, true, cpu(1000)), 0, true, false), registered(node("n3", 1000, true, cpu(1000)), 0, true, false))), Decision{Action: None}},
				{11 * time.Minute, obs(cloud(draining(registered(node("n1", 1000, true, cpu(1000)), 0, true, false)), registered(node("n2", 1000, true, cpu(1000)), 0, true, false), registered(node("n3", 1000, true, cpu(1000)), 0, true, false))), Decision{Action: None}},
				{12 * time.Minute, obs(cloud(registered(node("n2", 1000, true, cpu(1000)), 0, true, false), registered(node("n3", 2000, true, cpu(1000), cpu(1000)), 0, true, false))),
					Decision{Action: RemoveNodes, Drain: []string{"n2"}, Reason: "pods fit on the other cloud nodes for 10m0s"}},
			},
		},
		{
			name: "empty nodes go while a drain runs",
			steps: []step{
				{0, obs(cloud(draining(busy), registered(node("n3", 1000, true, cpu(1000)), 0, true, false), empty)), Decision{Action: None}},
				{10 * time.Minute, obs(cloud(draining(busy), registered(node("n3", 1000, true, cpu(1000)), 0, true, false), empty)),
					Decision{Action: RemoveNodes, Remove: []string{"n2"}, Reason: "pods fit on the other cloud nodes for 10m0s"}},
			},
		},
		{
			name: "a node of a removed flavor is drained once its pods fit elsewhere, without waiting, and bought room for first",
			steps: []step{
				{0, obs(cloud(flavor(busy, "old"), registered(node("n2", 2000, true, cpu(2000)), 0, true, false))),
					Decision{Action: AddNodes, Add: []NodeGroup{{Flavor: "large", Nodes: 1}}, Reason: "1 replicas on nodes of removed flavors (0.20 USD/h)"}},
				{time.Minute, obs(cloud(flavor(busy, "old"), registered(node("n2", 2000, true, cpu(2000)), 0, true, false), node("coming-1", 0, false))), Decision{Action: None}},
				{3 * time.Minute, obs(cloud(flavor(busy, "old"), registered(node("n2", 2000, true, cpu(2000)), 0, true, false), registered(node("n4", 0, true), 2*time.Minute, true, false))),
					Decision{Action: RemoveNodes, Drain: []string{"n1"}, Reason: "flavor no longer in the flavors: its pods fit on the other cloud nodes"}},
				{4 * time.Minute, obs(cloud(flavor(registered(node("n5", 0, true), 0, true, false), "old"), registered(node("n2", 2000, true, cpu(2000)), 0, true, false), registered(node("n4", 3000, true, cpu(3000)), 2*time.Minute, true, false))),
					Decision{Action: RemoveNodes, Remove: []string{"n5"}, Reason: "flavor no longer in the flavors: its pods fit on the other cloud nodes"}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(Reactive)
			if tc.minNodes > 0 {
				cfg.MinNodes = tc.minNodes
			}
			decideSteps(t, New(cfg), tc.steps)
		})
	}
}

// TestMinNodesPriced: the nodes minNodes adds are of the cheapest flavor
// and in the decision's price.
func TestMinNodesPriced(t *testing.T) {
	cfg := config(Reactive)
	cfg.MinNodes = 3
	cfg.Flavors = append(cfg.Flavors, Flavor{Name: "small", Allocatable: placement.Resources{MilliCPU: 2000, Memory: 4 * gi, Pods: 110}, PricePerHour: usd("0.1")})
	p := New(cfg)
	got := p.Decide(Observation{Now: start, Capacity: placement.Resources{MilliCPU: 70000, Memory: 220 * gi}, Unschedulable: []placement.Resources{cpu(6000)}})
	want := Decision{Action: ProvisionCluster, Add: []NodeGroup{{Flavor: "xlarge", Nodes: 1}, {Flavor: "small", Nodes: 2}}, Reason: "1 replicas unschedulable (0.60 USD/h)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decide (-want +got):\n%s", diff)
	}
}

// TestGroups: new nodes in words, with the pool's name after the word pool
// so that a pool named "0" (a cloud cluster's made before node pools) does
// not read as a count.
func TestGroups(t *testing.T) {
	tests := []struct {
		name string
		gs   []NodeGroup
		want string
	}{
		{name: "none", want: "no nodes"},
		{name: "one node", gs: []NodeGroup{{Flavor: "m1.large", Nodes: 1}}, want: "1 node in pool m1.large"},
		{name: "the pool made before node pools", gs: []NodeGroup{{Flavor: "0", Nodes: 1}}, want: "1 node in pool 0"},
		{name: "two pools", gs: []NodeGroup{{Flavor: "m1.large", Nodes: 2}, {Flavor: "m1.xlarge", Nodes: 1}},
			want: "2 nodes in pool m1.large and 1 node in pool m1.xlarge"},
		{name: "three pools", gs: []NodeGroup{{Flavor: "a", Nodes: 1}, {Flavor: "b", Nodes: 2}, {Flavor: "c", Nodes: 3}},
			want: "1 node in pool a, 2 nodes in pool b and 3 nodes in pool c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Groups(tc.gs)); diff != "" {
				t.Errorf("Groups (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPadFlavor: MinNodes is reached with the cheapest flavor, and of
// flavors of one price with the smallest, whatever the order listed.
func TestPadFlavor(t *testing.T) {
	large := Flavor{Name: "large", Allocatable: placement.Resources{MilliCPU: 4000, Memory: 8 * gi, Pods: 110}, PricePerHour: usd("0.2")}
	small := Flavor{Name: "small", Allocatable: placement.Resources{MilliCPU: 2000, Memory: 4 * gi, Pods: 110}, PricePerHour: usd("0.2")}
	cheap := Flavor{Name: "cheap", Allocatable: placement.Resources{MilliCPU: 8000, Memory: 16 * gi, Pods: 110}, PricePerHour: usd("0.1")}
	tests := []struct {
		name    string
		flavors []Flavor
		want    string
		ok      bool
	}{
		{name: "no flavors"},
		{name: "the cheapest", flavors: []Flavor{large, cheap}, want: "cheap", ok: true},
		{name: "of one price, the smaller", flavors: []Flavor{large, small}, want: "small", ok: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := Config{Flavors: tc.flavors}.PadFlavor()
			if diff := cmp.Diff([]any{tc.want, tc.ok}, []any{f.Name, ok}); diff != "" {
				t.Errorf("PadFlavor (-want +got):\n%s", diff)
			}
		})
	}
}
