package provision

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestConsolidationForgetsGoneNodes: the wait of a node that is gone is
// forgotten, so that a node of the same name that comes back waits the
// whole scale-down delay again, and the waits of the nodes still there are
// kept.
func TestConsolidationForgetsGoneNodes(t *testing.T) {
	busy := node("busy", 3000, true, cpu(3000))
	empty := func(name string) NodeState { return node(name, 0, true) }
	with := func(nodes ...NodeState) Observation {
		return Observation{Cloud: &Cloud{Phase: Ready, Workloads: 1, Nodes: nodes}}
	}
	remove := func(names ...string) Decision {
		return Decision{Action: RemoveNodes, Remove: names, Reason: "pods fit on the other cloud nodes for 10m0s"}
	}
	p := New(config(Reactive))
	decideSteps(t, p, []step{
		{0, with(busy, empty("a"), empty("b")), Decision{Action: None}},
		// a is gone for a while; b keeps its wait.
		{4 * time.Minute, with(busy, empty("b")), Decision{Action: None}},
		{6 * time.Minute, with(busy, empty("a"), empty("b")), Decision{Action: None}},
		{10 * time.Minute, with(busy, empty("a"), empty("b")), remove("b")},
		// a waits from when it came back, not from the start.
		{15 * time.Minute, with(busy, empty("a")), Decision{Action: None}},
		{16 * time.Minute, with(busy, empty("a")), remove("a")},
	})
	if diff := cmp.Diff(map[string]time.Time{}, p.unneededSince); diff != "" {
		t.Errorf("waits left (-want +got):\n%s", diff)
	}
}
