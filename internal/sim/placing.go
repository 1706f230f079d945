package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

// wantPlacement runs the placement controller of wl when it is created or
// lost replicas: a Deployment's pass, or a job's unplaced replicas placed.
func (w *world) wantPlacement(wl *mcWorkload) {
	switch {
	case wl.done:
	case w.pol.Placement == scenario.PlacementPropagate:
		w.propagate(wl)
	case wl.kind == placement.KindDeployment:
		w.reconcileDeployment(wl)
	case wl.unplaced() > 0:
		w.place(wl)
	}
}

// propagate is the KubeFed baseline: every replica goes to the first
// preferred cluster (or the first cluster), whether it fits or not.
func (w *world) propagate(wl *mcWorkload) {
	target := w.members[0]
	if len(wl.locations) > 0 {
		if m := w.byName[wl.locations[0]]; m != nil {
			target = m
		}
	}
	if wl.kind == placement.KindDeployment {
		w.writeMember(wl, target.Name, wl.asked())
		return
	}
	w.createPods(wl, target, wl.unplaced())
}

// place asks the placement framework where a job's replicas go and
// creates the new ones; it reports whether every replica found a cluster.
func (w *world) place(wl *mcWorkload) bool {
	d, err := w.decide(wl, w.snapshot(), wl.counts(false))
	if err != nil {
		w.fail(err)
		return false
	}
	w.apply(wl, d)
	return d.Unplaced == 0
}

// apply makes a job's replicas match decision d: the new ones are
// created where d assigns more than wl runs.
func (w *world) apply(wl *mcWorkload, d *placement.Decision) {
	current := wl.counts(false)
	for _, a := range d.Assignments {
		if n := a.Replicas - current[a.Cluster]; n > 0 {
			if m := w.byName[a.Cluster]; m != nil {
				w.createPods(wl, m, n)
			}
		}
	}
}

// decide calls the framework and times the call.
func (w *world) decide(wl *mcWorkload, snap *placement.Snapshot, current map[string]int32) (*placement.Decision, error) {
	pw := *wl.spec
	pw.Replicas, pw.Current = wl.asked(), current
	start := time.Now()
	d, err := w.placer.Place(w.ctx, snap, &pw)
	w.decisions = append(w.decisions, time.Since(start))
	if err != nil {
		return nil, fmt.Errorf("failed to place workload %q at %v: %w", wl.key, w.eng.Now(), err)
	}
	return d, nil
}

// capacityChanged is called when a member's capacity changed; shortly
// after (the inventory batches member events), the placement controllers
// look again: every Deployment has a pass, as a member change re-queues
// every MultiClusterDeployment, and jobs' unplaced replicas are retried.
func (w *world) capacityChanged() {
	if w.retrying || w.pol.Placement == scenario.PlacementPropagate {
		return
	}
	w.retrying = true
	w.eng.After(w.sc.Controllers.PlacementRetry, w.retryUnplaced)
}

// retryUnplaced runs a pass of every Deployment and places, oldest job
// first, the job replicas that found no cluster before. A job whose replica
// fits no node anywhere is skipped without calling the framework.
func (w *world) retryUnplaced() {
	w.retrying = false
	for _, wl := range slices.Clone(w.active) {
		if wl.kind == placement.KindDeployment {
			w.reconcileDeployment(wl)
			continue
		}
		if wl.unplaced() == 0 {
			continue
		}
		if !w.fitsSomewhere(wl.requests) {
			continue
		}
		w.place(wl)
	}
}

// fitsSomewhere reports whether some node of some cluster has room for r.
func (w *world) fitsSomewhere(r placement.Resources) bool {
	for _, m := range w.members {
		for _, n := range m.Nodes {
			if n.Fits(r) {
				return true
			}
		}
	}
	return false
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
	snap := newSnapshot(clusters, w.latency, w.traffic())
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
		out[wl.key] = map[string]float64{c: level}
	}
	return out
}
