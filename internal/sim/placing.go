package sim

import (
	"slices"

	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

// wantPlacement runs a pass of wl's controller, as a change of the object
// triggers one.
func (w *world) wantPlacement(wl *mcWorkload) {
	switch {
	case wl.done:
	case w.pol.Placement == scenario.PlacementPropagate:
		w.propagate(wl)
	case wl.spec.Kind == placement.KindDeployment:
		w.reconcileDeployment(wl)
	default:
		w.reconcileJob(wl)
	}
}

// propagate is the KubeFed baseline: every replica goes to the first
// preferred cluster (or the first cluster), whether it fits or not.
func (w *world) propagate(wl *mcWorkload) {
	target := w.members[0]
	if len(wl.spec.Locations) > 0 {
		if m := w.byName[wl.spec.Locations[0]]; m != nil {
			target = m
		}
	}
	if wl.spec.Kind == placement.KindDeployment {
		w.writeMember(wl, target.Name, wl.asked())
		return
	}
	w.createPods(wl, target, wl.unplaced())
}

// capacityChanged is called when a member's capacity changed; shortly
// after (the inventory batches member events), the placement controllers
// look again at the workloads that wait for room.
func (w *world) capacityChanged() { w.retryLater(false) }

// membersChanged is called when a member came or went; shortly after, the
// placement controllers look again at every Deployment, as a member's first
// word or a change of its readiness re-queues every MultiClusterDeployment.
func (w *world) membersChanged() {
	w.membersChangedAt = w.now()
	w.retryLater(true)
}

func (w *world) retryLater(all bool) {
	if w.pol.Placement == scenario.PlacementPropagate {
		return
	}
	w.retryAll = w.retryAll || all
	if w.retrying {
		return
	}
	w.retrying = true
	w.eng.After(w.sc.Controllers.PlacementRetry, w.retryUnplaced)
}

// retryUnplaced runs a pass of the workloads a member change re-queues:
// those that wait for room (decide.WaitsForRoom), or every Deployment after
// a member came or went.
func (w *world) retryUnplaced() {
	all := w.retryAll
	w.retrying, w.retryAll = false, false
	for _, wl := range slices.Clone(w.active) {
		p := wl.progress
		if wl.spec.Kind != placement.KindDeployment {
			// A job's own changes run its pass: its last one counts as decided.
			p = decide.Progress{Decided: true, Unplaced: wl.unplaced()}
		} else if all {
			p.Decided = false
		}
		if decide.WaitsForRoom(p) {
			w.wantPlacement(wl)
		}
	}
}

// snapshot returns the state of the clusters for the framework, reusing
// the last one while nothing changed.
func (w *world) snapshot() *placement.Snapshot {
	if w.snap != nil && w.snapVer == w.version && w.snapAt == w.eng.Now() {
		return w.snap
	}
	w.snap = w.buildSnapshot()
	w.snapVer, w.snapAt = w.version, w.eng.Now()
	return w.snap
}

// buildSnapshot converts the clusters for the framework and reserves what
// the assumptions hold, as the inventory's SnapshotFor does.
func (w *world) buildSnapshot() *placement.Snapshot {
	clusters := make([]placement.Cluster, 0, len(w.members))
	for _, m := range w.members {
		c := m.info
		c.Nodes = make([]placement.Node, len(m.Nodes))
		for i, n := range m.Nodes {
			c.Nodes[i] = placement.Node{Name: n.Name, Allocatable: n.Allocatable, Requested: n.Requested, Labels: n.Labels, Unschedulable: n.Unschedulable}
		}
		clusters = append(clusters, c)
	}
	snap := placement.NewSnapshot(clusters, w.latency, w.traffic())
	w.assumptions.Refresh(w.bound)
	snap.ApplyAssumptions(w.assumptions)
	return snap
}

// bound is how many pods of the workload key are bound in the cluster, as
// the inventory counts them for the assumptions.
func (w *world) bound(key, name string) int32 {
	wl := w.byKey[key]
	if wl == nil {
		return 0
	}
	var n int32
	for _, p := range wl.pods {
		if p.Running() && p.Cluster.Name == name {
			n++
		}
	}
	return n
}

// traffic is what each service receives now, by cluster.
func (w *world) traffic() map[string]map[string]float64 {
	var out map[string]map[string]float64
	for _, wl := range w.active {
		if wl.load == nil {
			continue
		}
		c, level, _ := wl.load.At(w.eng.Now())
		if c == "" || level <= 0 {
			continue
		}
		if out == nil {
			out = map[string]map[string]float64{}
		}
		out[wl.spec.Key] = map[string]float64{c: level}
	}
	return out
}
