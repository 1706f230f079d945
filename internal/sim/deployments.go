package sim

import (
	"maps"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/cluster"
)

// memberDeployment is a workload's Deployment in one member cluster, as
// the propagation writes it: the replicas asked for, from which generation
// of the workload's spec.
type memberDeployment struct {
	replicas   int32
	generation int64
}

// schedulePass asks for a pass of wl's controller after d, as a requeue
// does: an earlier pass already asked for stands, a later one is
// replaced.
func (w *world) schedulePass(wl *mcWorkload, d time.Duration) {
	at := w.eng.Now() + d
	if wl.passAt >= 0 && wl.passAt <= at {
		return
	}
	wl.passAt = at
	w.eng.After(d, func() {
		if wl.done || wl.passAt != at {
			return
		}
		wl.passAt = -1
		w.wantPlacement(wl)
	})
}

// reconcileDeployment is one pass of the MultiClusterDeployment controller
// over wl: observe the members, decide with decide.Deployment (the
// controller's own decision), write the members in the rollout's order, and
// come back when the plan says.
func (w *world) reconcileDeployment(wl *mcWorkload) {
	if wl.done {
		return
	}
	wl.spec.Replicas = wl.desired
	members := w.observeDeployment(wl)
	decide.ObserveMembers(w.assumptions, wl.spec, members)
	in := decide.DeploymentInput{
		Workload: wl.spec,
		Members:  members,
		Snapshot: w.snapshot(),
		Now:      w.now(),
		Timing:   w.timing,
		// A TrafficAware workload's traffic is read when the scenario
		// gives it a load.
		FollowsTraffic: wl.load != nil && wl.spec.Policy == placement.PolicyTrafficAware,
	}
	if w.pol.Rescheduler {
		in.PullBack = &decide.PullBack{Interval: w.sc.Controllers.ReschedulerPeriod, Last: wl.lastPullBack}
		if c := w.cloud; c != nil {
			in.PullBack.LeaveCloud = decide.SettledClouds([]decide.CloudTrend{{Cluster: w.sc.Cloud.Name, Ready: c.member != nil && !c.member.down, Trend: w.trend}})
		}
	}
	start := time.Now()
	p, err := decide.Deployment(w.ctx, w.placer, in)
	w.decisions = append(w.decisions, time.Since(start))
	if err != nil {
		w.fail(err)
		return
	}
	if p.PullBackConsidered {
		wl.lastPullBack = in.Now
	}
	p.Assume(w.assumptions)
	wl.progress = p.Progress(members)
	if len(p.Rollout.Grow)+len(p.Rollout.Shrink) > 0 {
		// What is assumed changed only if the members did: a pass that
		// writes nothing targets what the members already run.
		w.version++
	}
	for _, name := range p.Rollout.Grow {
		w.writeMember(wl, name, p.Target[name])
	}
	for _, name := range p.Rollout.Shrink {
		w.writeMember(wl, name, p.Target[name])
	}
	if p.LeftCloud > 0 {
		w.leftCloud += int(p.LeftCloud)
		w.event(EventLeftCloud, "%d replicas of %s leave the cloud cluster for member clusters with room (%d of them home): the provisioner forecasts no rise", p.LeftCloud, wl.spec.Key, p.MovedBack)
	} else if p.MovedBack > 0 {
		w.event(EventPulledBack, "%d replicas of %s move back to their preferred clusters", p.MovedBack, wl.spec.Key)
	}
	w.movedBack += int(p.MovedBack)
	if len(p.FailedOver) > 0 && len(p.Rollout.Grow) > 0 {
		for _, name := range slices.Sorted(maps.Keys(p.FailedOver)) {
			w.event(EventFailedOver, "member %s not ready for longer than %v: %d replicas of %s are placed elsewhere", name, w.timing.FailoverGrace, p.FailedOver[name], wl.spec.Key)
		}
	}
	// The simulated members have no disruption budgets.
	w.schedulePass(wl, p.AfterWrite(false))
}

// observeDeployment is what every member cluster shows of wl, as the
// controller reads it from the members' Deployments and pods.
func (w *world) observeDeployment(wl *mcWorkload) map[string]decide.Member {
	out := make(map[string]decide.Member, len(w.members))
	for _, m := range w.members {
		md := wl.deployments[m.Name]
		// The inventory's caches keep what a member cut off showed last,
		// which is what it still runs: nothing writes to it meanwhile.
		dm := decide.Member{Ready: !m.down, NotReadySince: w.notReadySince(m), Connected: true, CaughtUp: true}
		if md != nil {
			dm.Exists, dm.UpToDate, dm.Replicas = true, md.generation == wl.generation, md.replicas
		}
		out[m.Name] = dm
	}
	for name, c := range wl.podCounts() {
		dm := out[name]
		dm.ReadyReplicas, dm.Bound, dm.Pending, dm.PendingSince = c.Bound, c.Bound, c.Pending, c.PendingSince
		out[name] = dm
	}
	return out
}

// writeMember sets wl's Deployment in the named member to replicas, as the
// propagation does, and the member's Deployment controller makes its pods
// match at once: new pods join the member's scheduler, and a scale-down
// removes Pending pods first, then the newest.
func (w *world) writeMember(wl *mcWorkload, name string, replicas int32) {
	m := w.byName[name]
	if m == nil {
		return
	}
	if replicas == 0 {
		delete(wl.deployments, name)
	} else {
		wl.deployments[name] = &memberDeployment{replicas: replicas, generation: wl.generation}
	}
	have := wl.counts(false)[name]
	if n := replicas - have; n > 0 {
		w.createPods(wl, m, n)
		return
	}
	for extra := have - replicas; extra > 0; extra-- {
		w.deletePod(newestIn(wl, name))
	}
}

// newestIn returns wl's pod in the named cluster that a Deployment's
// scale-down removes first: a Pending one, else the newest.
func newestIn(wl *mcWorkload, name string) *cluster.Pod {
	var found *cluster.Pod
	for _, p := range wl.pods {
		if p.Cluster.Name != name {
			continue
		}
		if found == nil || (found.Running() && !p.Running()) || (found.Running() == p.Running() && p.ID > found.ID) {
			found = p
		}
	}
	return found
}
