package decide

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Member is what one member cluster shows of a multi-cluster deployment.
type Member struct {
	// Ready is whether the member answers and may take replicas.
	Ready bool
	// Connected is false when the inventory has no connection to the member;
	// Replicas is then what the last decision gave it.
	Connected bool
	// Exists is whether the member Deployment exists, and UpToDate whether
	// it was written from the workload's current generation.
	Exists   bool
	UpToDate bool
	// Replicas is the member Deployment's spec.replicas.
	Replicas int32
	// ReadyReplicas is how many of them are ready.
	ReadyReplicas int32
	// Bound counts the workload's pods bound to a node and not finished.
	Bound int32
	// Pending counts the workload's pods Unschedulable in the member, since
	// PendingSince.
	Pending      int32
	PendingSince time.Time
	// CaughtUp is whether the member's Deployment controller has acted on
	// the last write (observed generation at least the generation): right
	// after a scale-down it still shows the Pending pods it is about to
	// remove, and they must not be moved elsewhere.
	CaughtUp bool
	// NotReadySince is when the member stopped being ready; zero if it is.
	NotReadySince time.Time
	// Foreign is whether the member has a Deployment of the workload's
	// namespace and name that Meridian did not make for it: the workload
	// gets no replicas there, so that it is never overwritten.
	Foreign bool
}

// Timing are the graces and intervals of the deployment controller.
type Timing struct {
	// PendingGrace is how long replicas may stay Unschedulable in a member
	// before the overflow is placed elsewhere.
	PendingGrace time.Duration
	// FailoverGrace is how long a member may be not ready before its
	// replicas are placed elsewhere; zero holds them until it returns.
	FailoverGrace time.Duration
	// Resync is the time between two passes of a settled workload.
	Resync time.Duration
	// MoveCheck is the time between two passes while a move waits for new
	// replicas to be ready.
	MoveCheck time.Duration
	// UnplacedRetry is the time between two passes while replicas fit no
	// cluster.
	UnplacedRetry time.Duration
	// TrafficInterval is the time between two passes of a workload that
	// follows its traffic (DeploymentInput.FollowsTraffic): its placement
	// follows the traffic readings at this pace.
	TrafficInterval time.Duration
}

// DefaultTiming is the deployment controller's timing unless configured;
// its FailoverGrace is the controller's --failover-grace default (a zero
// FailoverGrace holds replicas until their member returns).
var DefaultTiming = Timing{
	PendingGrace:    30 * time.Second,
	FailoverGrace:   2 * time.Minute,
	Resync:          time.Minute,
	MoveCheck:       2 * time.Second,
	UnplacedRetry:   10 * time.Second,
	TrafficInterval: 30 * time.Second,
}

// PullBack is the active re-scheduler as one workload's pass sees it.
type PullBack struct {
	// Interval is how often a workload's replicas are considered for a move
	// back home.
	Interval time.Duration
	// Last is when this workload was last considered; zero if never.
	Last time.Time
	// LeaveCloud names the cloud clusters whose provisioner forecasts a
	// settled demand (provision.Settled): their replicas may go to any
	// member cluster the workload's placement allows, not only home.
	LeaveCloud map[string]bool
}

// DeploymentInput is everything one pass of a MultiClusterDeployment
// decides on.
type DeploymentInput struct {
	// Workload is the workload as its spec asks for it (workload.New);
	// Current and Full are ignored and set by the decision.
	Workload *placement.Workload
	// Members are every known member, by name.
	Members map[string]Member
	// Snapshot is the member clusters now, with the assumptions applied.
	Snapshot *placement.Snapshot
	// Now is the time of the pass.
	Now    time.Time
	Timing Timing
	// PullBack is nil when no re-scheduler is active.
	PullBack *PullBack
	// FollowsTraffic says the workload's traffic is read (a TrafficAware
	// workload whose traffic has a source), so that the pass comes back at
	// Timing.TrafficInterval to follow it.
	FollowsTraffic bool
}

// DeploymentPlan is the outcome of one pass.
type DeploymentPlan struct {
	// Workload is what was placed: the replicas not held, with Current and
	// Full as observed.
	Workload *placement.Workload
	// Decision is the framework's answer, with its explanation.
	Decision *placement.Decision
	// Held are the replicas kept on members that are not ready, until they
	// return or the failover grace period ends.
	Held map[string]int32
	// FailedOver are the replicas of members not ready beyond the failover
	// grace period, placed elsewhere.
	FailedOver map[string]int32
	// Overdue names the members whose replicas stayed Unschedulable beyond
	// the pending grace period.
	Overdue []string
	// Foreign names the members that have their own Deployment of the
	// workload's name: none of its replicas go there.
	Foreign []string
	// Target is the replicas every member should run.
	Target map[string]int32
	// MovedBack is how many replicas the plan brings back to the preferred
	// clusters that they do not run yet.
	MovedBack int32
	// LeftCloud is how many replicas the plan moves out of cloud clusters
	// named in PullBack.LeaveCloud, home or to other member clusters.
	LeftCloud int32
	// PullBackConsidered says the pass considered a pull-back: the caller
	// records Now as PullBack.Last for the next pass.
	PullBackConsidered bool
	// Rollout says which members to write, and in which order.
	Rollout Rollout
	// RequeueAfter is when to look again at the latest.
	RequeueAfter time.Duration

	// rebalances is whether the workload's policy places afresh each pass.
	rebalances bool
	// moveCheck is Timing.MoveCheck, for AfterWrite.
	moveCheck time.Duration
}

// AfterWrite is when to look again once the plan was written: RequeueAfter,
// or sooner (Timing.MoveCheck) when a disruption budget held back some of
// the rollout's removals, which the next pass tries again.
func (p *DeploymentPlan) AfterWrite(budgetHeld bool) time.Duration {
	if budgetHeld {
		return min(p.RequeueAfter, p.moveCheck)
	}
	return p.RequeueAfter
}

// Deployment decides where a MultiClusterDeployment's replicas run and how
// the members get there. Its error wraps the framework's: an invalid
// workload (placement.ErrInvalidWorkload, ErrUnknownPolicy) or a failure
// that a retry may cure.
func Deployment(ctx context.Context, placer Placer, in DeploymentInput) (*DeploymentPlan, error) {
	w := *in.Workload
	w.Current, w.Full = map[string]int32{}, nil
	p := &DeploymentPlan{Workload: &w, Held: map[string]int32{}, FailedOver: map[string]int32{}, Target: map[string]int32{}}
	for _, name := range slices.Sorted(maps.Keys(in.Members)) {
		m := in.Members[name]
		switch {
		case m.Foreign:
			if w.Full == nil {
				w.Full = map[string]bool{}
			}
			w.Full[name] = true
			p.Foreign = append(p.Foreign, name)
		case !m.Ready && m.Replicas > 0 && failedOver(m, in.Now, in.Timing.FailoverGrace):
			// Gone too long: its replicas are placed anew among the ready
			// members. When it returns, what it still runs counts as
			// Current again and the excess is given up, so nothing runs
			// twice for long.
			p.FailedOver[name] = m.Replicas
		case !m.Ready && m.Replicas > 0:
			p.Held[name] = m.Replicas
			w.Replicas = max(w.Replicas-m.Replicas, 0)
		case m.Ready && overdue(m, in.Now, in.Timing.PendingGrace):
			// What the member could not run goes elsewhere; it keeps the rest.
			w.Current[name] = max(m.Replicas-m.Pending, 0)
			if w.Full == nil {
				w.Full = map[string]bool{}
			}
			w.Full[name] = true
			p.Overdue = append(p.Overdue, name)
		case m.Ready && m.Replicas > 0:
			w.Current[name] = m.Replicas
		}
	}

	d, err := placer.Place(ctx, in.Snapshot, &w)
	if err != nil {
		return nil, fmt.Errorf("failed to place: %w", err)
	}
	p.Decision = d
	maps.Copy(p.Target, p.Held)
	for _, a := range d.Assignments {
		p.Target[a.Cluster] += a.Replicas
	}
	// A policy that places every replica afresh already puts them where
	// it prefers on every pass; a pull-back would fight it, and each would
	// undo the other's move.
	p.rebalances = placer.Rebalances(w.Policy)
	if pb := in.PullBack; pb != nil && !p.rebalances && pullBackDue(pb, in.Now) {
		p.PullBackConsidered = true
		left, err := leaveCloud(ctx, placer, p, in.Snapshot, pb.LeaveCloud)
		if err != nil {
			return nil, err
		}
		moved := left
		if left == 0 {
			moved = pullBack(p, in.Snapshot, in.Members)
		}
		p.LeftCloud = left
		p.MovedBack = newAtHome(&w, moved, p.Target, in.Members)
	}
	p.Rollout = rollout(p, in.Members)
	p.RequeueAfter, p.moveCheck = next(p, in), in.Timing.MoveCheck
	return p, nil
}

// failedOver reports whether m has been not ready for longer than grace; a
// zero grace never fails over.
func failedOver(m Member, now time.Time, grace time.Duration) bool {
	return grace > 0 && !m.NotReadySince.IsZero() && now.Sub(m.NotReadySince) >= grace
}

// overdue reports whether m's Unschedulable replicas have waited beyond
// grace, counted only once the member caught up with the last write.
func overdue(m Member, now time.Time, grace time.Duration) bool {
	return m.Pending > 0 && m.CaughtUp && now.Sub(m.PendingSince) >= grace
}

// next is when to look again: soon while a move waits, pending replicas
// approach the grace period, a not-ready member approaches failover or
// replicas fit nowhere; at the re-scheduler's pace while replicas are away
// from home; at the traffic's pace when the placement follows it; else
// after Resync.
func next(p *DeploymentPlan, in DeploymentInput) time.Duration {
	t := in.Timing
	after := t.Resync
	if p.Rollout.Waiting {
		after = min(after, t.MoveCheck)
	}
	for name, m := range in.Members {
		if m.Ready && m.Pending > 0 && !overdue(m, in.Now, t.PendingGrace) {
			after = min(after, max(m.PendingSince.Add(t.PendingGrace).Sub(in.Now), 0)+time.Second)
		}
		if p.Held[name] > 0 && t.FailoverGrace > 0 && !m.NotReadySince.IsZero() {
			after = min(after, max(m.NotReadySince.Add(t.FailoverGrace).Sub(in.Now), 0)+time.Second)
		}
	}
	if p.Decision.Unplaced > 0 {
		after = min(after, t.UnplacedRetry)
	}
	if in.PullBack != nil && !p.rebalances && awayFromHome(p.Workload, p.Target) {
		// Room at home may come from anywhere: look again at the
		// re-scheduler's pace, not only when something changes.
		after = min(after, in.PullBack.Interval)
	}
	if in.FollowsTraffic && t.TrafficInterval > 0 {
		after = min(after, t.TrafficInterval)
	}
	return max(after, time.Second)
}
