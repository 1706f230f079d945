package sim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

// wantPlacement places what wl has unplaced now, as the placement
// controller does when a workload is created or its replicas change.
func (w *world) wantPlacement(wl *mcWorkload) {
	if wl.done || wl.unplaced() == 0 {
		return
	}
	if w.pol.Placement == scenario.PlacementPropagate {
		w.propagate(wl)
		return
	}
	w.place(wl)
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
	w.createPods(wl, target, wl.unplaced())
}

// place asks the placement framework where wl's replicas go and creates
// the new ones; it reports whether every replica found a cluster.
func (w *world) place(wl *mcWorkload) bool {
	d, err := w.decide(wl, w.snapshot(), wl.counts(false))
	if err != nil {
		w.fail(err)
		return false
	}
	w.apply(wl, d)
	return d.Unplaced == 0
}

// apply makes wl's replicas match decision d: new replicas first, then
// those d moved away (a profile that rebalances, such as traffic-aware, may
// move replicas) are removed, Pending ones first.
func (w *world) apply(wl *mcWorkload, d *placement.Decision) {
	current := wl.counts(false)
	target := map[string]int32{}
	for _, a := range d.Assignments {
		target[a.Cluster] = a.Replicas
		if n := a.Replicas - current[a.Cluster]; n > 0 {
			if m := w.byName[a.Cluster]; m != nil {
				w.createPods(wl, m, n)
			}
		}
	}
	after := wl.counts(false)
	for _, name := range slices.Sorted(maps.Keys(after)) {
		for extra := after[name] - target[name]; extra > 0; extra-- {
			w.deletePod(w.podIn(wl, name))
		}
	}
}

// decide calls the framework and times the call.
func (w *world) decide(wl *mcWorkload, snap *placement.Snapshot, current map[string]int32) (*placement.Decision, error) {
	pw := &placement.Workload{
		Key:               wl.key,
		Kind:              wl.kind,
		Replicas:          wl.asked(),
		PodRequests:       wl.requests,
		Policy:            placement.Policy(w.pol.Placement),
		Locations:         wl.locations,
		NumberOfLocations: w.pol.NumberOfLocations,
		Substitution:      w.pol.Substitution,
		Bursting:          w.pol.Bursting,
		Current:           current,
	}
	start := time.Now()
	d, err := w.placer.Place(w.ctx, snap, pw)
	w.decisions = append(w.decisions, time.Since(start))
	if err != nil {
		return nil, fmt.Errorf("failed to place workload %q at %v: %w", wl.key, w.eng.Now(), err)
	}
	return d, nil
}

// capacityChanged is called when room may have freed somewhere; the
// placement controller retries the unplaced replicas shortly after.
func (w *world) capacityChanged() {
	if w.retrying || w.pol.Placement == scenario.PlacementPropagate {
		return
	}
	w.retrying = true
	w.eng.After(w.sc.Controllers.PlacementRetry, w.retryUnplaced)
}

// retryUnplaced places, oldest workload first, the replicas that found no
// cluster before. A workload whose replica fits no node anywhere is skipped
// without calling the framework.
func (w *world) retryUnplaced() {
	w.retrying = false
	for _, wl := range w.active {
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
	w.snap = w.buildSnapshot(nil)
	w.snapVer, w.snapAt = w.version, w.eng.Now()
	return w.snap
}

// buildSnapshot converts the clusters for the framework; the pods of
// without, when set, are left out as if they were gone.
func (w *world) buildSnapshot(without *mcWorkload) *placement.Snapshot {
	clusters := make([]placement.Cluster, 0, len(w.members))
	for _, m := range w.members {
		c := m.info
		c.Nodes = make([]placement.Node, len(m.Nodes))
		for i, n := range m.Nodes {
			req := n.Requested
			if without != nil {
				for _, p := range without.pods {
					if p.Node == n {
						req.MilliCPU -= p.Requests.MilliCPU
						req.Memory -= p.Requests.Memory
						req.Pods -= p.Requests.Pods
					}
				}
			}
			c.Nodes[i] = placement.Node{Name: n.Name, Allocatable: n.Allocatable, Requested: req, Labels: n.Labels, Unschedulable: n.Unschedulable}
		}
		clusters = append(clusters, c)
	}
	return newSnapshot(clusters, w.latency, w.traffic())
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
