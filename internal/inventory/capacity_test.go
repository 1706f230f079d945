package inventory

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meridian-dev/meridian/internal/placement"
)

func testNode(name, cpu string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourcePods: resource.MustParse("110")}
	n.Status.Capacity = n.Status.Allocatable
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	return n
}

// TestCapacityGeneration checks which events give a member's nodes a new
// generation: those that change what a snapshot reads, and no others.
func TestCapacityGeneration(t *testing.T) {
	heartbeat := testNode("a", "4")
	heartbeat.Status.Conditions[0].LastHeartbeatTime = metav1.Now()
	bigger := testNode("a", "8")
	running := benchPod("p", "a", 500, 1<<30)
	running.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	finished := benchPod("p", "a", 500, 1<<30)
	finished.Status.Phase = corev1.PodSucceeded

	tests := []struct {
		name   string
		event  func(x *capacityIndex)
		change bool
	}{
		{name: "a node's heartbeat", event: func(x *capacityIndex) { x.setNode(heartbeat) }, change: false},
		{name: "a node's allocatable", event: func(x *capacityIndex) { x.setNode(bigger) }, change: true},
		{name: "a new node", event: func(x *capacityIndex) { x.setNode(testNode("b", "4")) }, change: true},
		{name: "a node deleted", event: func(x *capacityIndex) { x.deleteNode("a") }, change: true},
		{name: "an unknown node deleted", event: func(x *capacityIndex) { x.deleteNode("z") }, change: false},
		{name: "a pod's status", event: func(x *capacityIndex) { x.setPod(running) }, change: false},
		{name: "a pod bound", event: func(x *capacityIndex) { x.setPod(benchPod("q", "a", 500, 1<<30)) }, change: true},
		{name: "a pending pod", event: func(x *capacityIndex) { x.setPod(benchPod("q", "", 500, 1<<30)) }, change: false},
		{name: "a pod finished", event: func(x *capacityIndex) { x.setPod(finished) }, change: true},
		{name: "a pod deleted", event: func(x *capacityIndex) { x.deletePod("p") }, change: true},
		{name: "an unknown pod deleted", event: func(x *capacityIndex) { x.deletePod("z") }, change: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := newCapacityIndex()
			x.setNode(testNode("a", "4"))
			x.setPod(benchPod("p", "a", 500, 1<<30))
			before, gen := x.shared()
			want := placement.Node{Name: "a", Allocatable: before[0].Allocatable, Requested: before[0].Requested}
			tc.event(x)
			after, next := x.shared()
			if diff := cmp.Diff(tc.change, next != gen); diff != "" {
				t.Errorf("generation changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.change, len(after) != len(before) || (len(after) > 0 && &after[0] != &before[0])); diff != "" {
				t.Errorf("nodes copied again (-want +got):\n%s", diff)
			}
			got := placement.Node{Name: before[0].Name, Allocatable: before[0].Allocatable, Requested: before[0].Requested}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("nodes handed out before the event changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCapacityGenerationsAreNeverReused(t *testing.T) {
	x, y := newCapacityIndex(), newCapacityIndex()
	x.setNode(testNode("a", "4"))
	_, gx := x.shared()
	_, gy := y.shared()
	y.setNode(testNode("a", "8"))
	_, gy2 := y.shared()
	seen := map[uint64]bool{}
	for _, g := range []uint64{gx, gy, gy2} {
		if seen[g] || g == 0 {
			t.Errorf("generation %d handed out twice or zero among %d, %d, %d", g, gx, gy, gy2)
		}
		seen[g] = true
	}
}

// TestSnapshotCopiesOnlyChangedMembers checks that the inventory's
// snapshots follow a change in one member, share the others with the
// previous snapshot, and leave the previous snapshot as it was.
func TestSnapshotCopiesOnlyChangedMembers(t *testing.T) {
	inv := inmemInventory(t, 3, 4)
	first := inv.Snapshot(nil)
	free := func(s *placement.Snapshot, member string) placement.Resources { return s.Cluster(member).Free[0] }
	was := free(first, benchMember(1))

	inv.members[benchMember(1)].capacity.setPod(benchPod("extra", "node-0", 1000, 1<<30))
	second := inv.Snapshot(nil)

	wantFree := was
	wantFree.MilliCPU, wantFree.Memory, wantFree.Pods = was.MilliCPU-1000, was.Memory-1<<30, was.Pods-1
	if diff := cmp.Diff(wantFree, free(second, benchMember(1))); diff != "" {
		t.Errorf("free resources of the changed member (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(was, free(first, benchMember(1))); diff != "" {
		t.Errorf("the earlier snapshot changed (-want +got):\n%s", diff)
	}
	var shared []string
	for _, c := range second.Clusters {
		if &c.Free[0] == &first.Cluster(c.Name).Free[0] {
			shared = append(shared, c.Name)
		}
	}
	if diff := cmp.Diff([]string{benchMember(0), benchMember(2)}, shared); diff != "" {
		t.Errorf("members shared with the earlier snapshot (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(first.Latency, second.Latency); diff != "" {
		t.Errorf("latency matrix mismatch (-want +got):\n%s", diff)
	}
}
