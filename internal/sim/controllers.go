package sim

import (
	"math"
	"slices"

	"github.com/meridian-dev/meridian/internal/autoscale"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/reschedule"
	"github.com/meridian-dev/meridian/internal/sim/cluster"
)

// autoscale is one pass of the multi-cluster HPA over the services that
// have one, then (for traffic-aware placement) of the scheduler following
// their traffic.
func (w *world) autoscale() {
	for _, wl := range slices.Clone(w.active) {
		if wl.hpa == nil {
			continue
		}
		running := int32(0)
		for _, p := range wl.pods {
			if p.Running() {
				running++
			}
		}
		util := 0.0
		if wl.load != nil && running > 0 {
			_, _, milli := wl.load.At(w.eng.Now())
			// The load is spread over the Running replicas, each of which
			// can use up to its request (limits equal requests).
			util = math.Min(100, 100*milli/float64(int64(running)*wl.requests.MilliCPU))
		}
		r := wl.hpa.Recommend(w.now(), autoscale.Observation{Current: wl.desired, Ready: running, Utilization: util})
		switch {
		case r.Desired > wl.desired:
			wl.desired = r.Desired
			w.wantPlacement(wl)
		case r.Desired < wl.desired:
			n := wl.desired - r.Desired
			wl.desired = r.Desired
			w.scaleDown(wl, n)
		}
		if w.pol.Placement == string(placement.PolicyTrafficAware) && wl.load != nil {
			w.followTraffic(wl)
		}
	}
}

// followTraffic moves wl to its users (seed 001 VI-C): when none of its
// replicas is in the cluster its traffic comes from, it is placed afresh, as
// if its replicas were not there, and moved if the new placement uses that
// cluster. Replicas are added in the new clusters before the old ones are
// removed.
func (w *world) followTraffic(wl *mcWorkload) {
	current := wl.counts(false)
	src, level, _ := wl.load.At(w.eng.Now())
	if len(current) == 0 || src == "" || level <= 0 || current[src] > 0 {
		return
	}
	d, err := w.decide(wl, w.buildSnapshot(wl), nil)
	if err != nil {
		w.fail(err)
		return
	}
	target := map[string]int32{}
	for _, a := range d.Assignments {
		target[a.Cluster] = a.Replicas
	}
	if target[src] == 0 {
		return
	}
	w.apply(wl, d)
}

// podIn returns a pod of wl in the named cluster, a Pending one if any.
func (w *world) podIn(wl *mcWorkload, name string) *cluster.Pod {
	var found *cluster.Pod
	for _, p := range wl.pods {
		if p.Cluster.Name != name {
			continue
		}
		if !p.Running() {
			return p
		}
		found = p
	}
	return found
}

// reschedule is one pass of the multi-cluster re-scheduler: Deployments
// running away from their preferred clusters come back where there is room,
// the new replica first, the far one removed once the new one runs.
func (w *world) reschedule() {
	clusters := make([]reschedule.Cluster, 0, len(w.members))
	for _, m := range w.members {
		c := reschedule.Cluster{Name: m.Name, Cloud: m.cloud}
		for _, n := range m.Nodes {
			if !n.Unschedulable {
				c.Free = append(c.Free, placement.Resources{
					MilliCPU: n.Allocatable.MilliCPU - n.Requested.MilliCPU,
					Memory:   n.Allocatable.Memory - n.Requested.Memory,
					Pods:     n.Allocatable.Pods - n.Requested.Pods,
				})
			}
		}
		clusters = append(clusters, c)
	}
	var wls []reschedule.Workload
	for _, wl := range w.active {
		if wl.kind != placement.KindDeployment {
			continue
		}
		pref := w.preferred(wl)
		running := wl.counts(true)
		away := false
		for name := range running {
			away = away || !slices.Contains(pref, name)
		}
		if away {
			wls = append(wls, reschedule.Workload{Key: wl.key, Requests: wl.requests, Preferred: pref, Running: running})
		}
	}
	for _, mv := range reschedule.Plan(clusters, wls, w.latency, w.pol.RescheduleMaxMoves) {
		wl, to := w.byKey[mv.Workload], w.byName[mv.To]
		before := len(wl.pods)
		w.createPods(wl, to, mv.Replicas)
		moved := 0
		for _, p := range slices.Clone(wl.pods[before:]) {
			if !p.Running() {
				w.deletePod(p) // the plan was wrong: undo rather than double
				continue
			}
			if old := w.runningPodIn(wl, mv.From); old != nil {
				w.deletePod(old)
				moved++
			}
		}
		if moved > 0 {
			w.movedBack += moved
			w.event(EventPulledBack, "%d replicas of %s moved back from %s to %s", moved, wl.key, mv.From, mv.To)
		}
	}
}

func (w *world) runningPodIn(wl *mcWorkload, name string) *cluster.Pod {
	for _, p := range wl.pods {
		if p.Running() && p.Cluster.Name == name {
			return p
		}
	}
	return nil
}
