package multiclusterdeployment

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/placement"
)

// report writes the plan, what the members show and how propagation went
// into mcd's status, and records an event when the decision changed.
func (r *Reconciler) report(s *Subject, p *plan, members map[string]*member, prop rollout) {
	mcd := s.MCD
	st := &mcd.Status
	prevSummary := st.Summary
	st.ObservedGeneration = mcd.Generation
	st.Selector = metav1.FormatLabelSelector(mcd.Spec.Selector)
	st.UnplacedReplicas = p.Decision.Unplaced
	st.Replicas, st.ReadyReplicas, st.AvailableReplicas = 0, 0, 0
	s.Reported = true
	s.Current, s.Updated, s.Settled = 0, 0, prop.err == nil && !prop.waiting && len(prop.unreachable) == 0
	var pending int32
	var pendingIn []string
	for _, name := range slices.Sorted(maps.Keys(members)) {
		m := members[name]
		st.Replicas += p.Target[name]
		if p.Target[name] > 0 && (!m.Exists || !m.UpToDate || !m.CaughtUp) {
			s.Settled = false
		}
		if !m.Ready {
			continue
		}
		st.ReadyReplicas += m.ReadyReplicas
		st.AvailableReplicas += m.available
		s.Current += m.current
		s.Updated += m.updated
		if m.Pending > 0 {
			pending += m.Pending
			pendingIn = append(pendingIn, fmt.Sprintf("%d in %s for %s", m.Pending, name, r.Clock.Since(m.PendingSince).Round(time.Second)))
		}
	}
	st.Summary = summary(p.Target)
	for _, name := range slices.Sorted(maps.Keys(p.FailedOver)) {
		if lastDecision(mcd, name) > 0 {
			r.event(s, corev1.EventTypeWarning, "FailedOver", "member %s not ready for longer than %s; its %d replicas are placed elsewhere", name, r.FailoverGrace, p.FailedOver[name])
		}
	}
	st.Clusters = clusterDecisions(mcd, s.kind().Kind, p, members)
	for _, name := range p.Foreign {
		r.event(s, corev1.EventTypeWarning, "Conflict", "member %s has its own %s %s/%s that Meridian did not make; no replicas go there", name, s.kind().Kind, mcd.Namespace, mcd.Name)
	}
	switch {
	case p.LeftCloud > 0:
		r.event(s, corev1.EventTypeNormal, "LeftCloud", "%d replicas leave settled cloud clusters for member clusters with room, %d of them home (added there before they are removed in the cloud)", p.LeftCloud, p.MovedBack)
	case p.MovedBack > 0:
		r.event(s, corev1.EventTypeNormal, "PulledBack", "%d replicas move back to their preferred clusters (added there before they are removed away)", p.MovedBack)
	}
	if st.Summary != prevSummary {
		now := metav1.Now()
		st.LastDecisionTime = &now
		r.event(s, corev1.EventTypeNormal, "Placed", "Replicas placed: %s", orNone(st.Summary))
	}

	desired := p.Workload.Replicas
	for _, n := range p.Held {
		desired += n
	}
	r.setPlaced(s, p)
	switch {
	case prop.err != nil:
		set(mcd, multiclusterv1alpha1.ConditionPropagated, false, multiclusterv1alpha1.ReasonApplyFailed, prop.err.Error())
	case len(prop.unreachable) > 0:
		set(mcd, multiclusterv1alpha1.ConditionPropagated, false, multiclusterv1alpha1.ReasonMemberUnreachable,
			fmt.Sprintf("members %s are not connected; their %ss are written when they are", strings.Join(prop.unreachable, ", "), s.kind().Kind))
	case prop.heldBy != "":
		if c := meta.FindStatusCondition(st.Conditions, multiclusterv1alpha1.ConditionPropagated); c == nil || c.Reason != multiclusterv1alpha1.ReasonDisruptionBudget {
			r.event(s, corev1.EventTypeWarning, "MoveHeld", "replicas away from home stay: %s", prop.heldBy)
		}
		set(mcd, multiclusterv1alpha1.ConditionPropagated, false, multiclusterv1alpha1.ReasonDisruptionBudget,
			"replicas move: the old ones stay until "+prop.heldBy+" allows their removal")
	case prop.waiting:
		set(mcd, multiclusterv1alpha1.ConditionPropagated, false, multiclusterv1alpha1.ReasonWaitingForNewReplicas,
			"replicas move: the new ones must be ready before the old ones are removed")
	default:
		set(mcd, multiclusterv1alpha1.ConditionPropagated, true, multiclusterv1alpha1.ReasonPropagated, "member "+s.kind().Kind+"s match the decision: "+orNone(st.Summary))
	}
	if st.ReadyReplicas >= desired {
		set(mcd, multiclusterv1alpha1.ConditionAvailable, true, multiclusterv1alpha1.ReasonReplicasReady, fmt.Sprintf("%d of %d replicas ready", st.ReadyReplicas, desired))
	} else {
		set(mcd, multiclusterv1alpha1.ConditionAvailable, false, multiclusterv1alpha1.ReasonReplicasNotReady, fmt.Sprintf("%d of %d replicas ready", st.ReadyReplicas, desired))
	}
	if pending > 0 {
		msg := fmt.Sprintf("%d replicas Pending (Unschedulable): %s; after %s the overflow is placed elsewhere", pending, strings.Join(pendingIn, ", "), r.PendingGrace)
		set(mcd, multiclusterv1alpha1.ConditionReplicasPending, true, multiclusterv1alpha1.ReasonUnschedulable, msg)
	} else {
		set(mcd, multiclusterv1alpha1.ConditionReplicasPending, false, multiclusterv1alpha1.ReasonNoPendingReplicas, "no replica is Pending in a member")
	}
}

func (r *Reconciler) setPlaced(s *Subject, p *plan) {
	mcd := s.MCD
	d := p.Decision
	switch {
	case d.Unplaced == 0:
		set(mcd, multiclusterv1alpha1.ConditionPlaced, true, multiclusterv1alpha1.ReasonPlaced, "every replica has a cluster: "+orNone(summary(p.Target)))
	case len(d.Assignments) == 0 && allFiltered(d):
		msg := fmt.Sprintf("no cluster can take the workload: %s", filterReasons(d))
		set(mcd, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonNoCluster, msg)
		r.event(s, corev1.EventTypeWarning, multiclusterv1alpha1.ReasonNoCluster, "%s", msg)
	default:
		msg := fmt.Sprintf("%d of %d replicas fit no cluster", d.Unplaced, p.Workload.Replicas)
		if reasons := filterReasons(d); reasons != "" {
			msg += "; " + reasons
		}
		set(mcd, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInsufficientCapacity, msg)
		r.event(s, corev1.EventTypeWarning, multiclusterv1alpha1.ReasonInsufficientCapacity, "%s", msg)
	}
}

// reportInvalid records a spec the framework refused.
func (r *Reconciler) reportInvalid(s *Subject, err error) {
	mcd := s.MCD
	mcd.Status.ObservedGeneration = mcd.Generation
	set(mcd, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec, err.Error())
	r.event(s, corev1.EventTypeWarning, multiclusterv1alpha1.ReasonInvalidSpec, "%s", err.Error())
}

func (r *Reconciler) event(s *Subject, kind, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(s.Regarding, nil, kind, reason, "Place", format, args...)
	}
}

func set(mcd *multiclusterv1alpha1.MultiClusterDeployment, kind string, ok bool, reason, msg string) {
	conditions.Set(&mcd.Status.Conditions, mcd.Generation, kind, ok, reason, msg)
}

// setReady summarises the other conditions in Ready: a Deployment is ready
// when it is placed, propagated and available.
func setReady(mcd *multiclusterv1alpha1.MultiClusterDeployment) {
	conditions.SetSummary(&mcd.Status.Conditions, mcd.Generation, conditions.Summary{
		Type: multiclusterv1alpha1.ConditionReady, Reason: multiclusterv1alpha1.ReasonReady,
		Message:       "placed, propagated and available: " + orNone(mcd.Status.Summary),
		MissingReason: multiclusterv1alpha1.ReasonNotObserved,
	},
		conditions.Requirement{Type: multiclusterv1alpha1.ConditionPlaced, Status: metav1.ConditionTrue},
		conditions.Requirement{Type: multiclusterv1alpha1.ConditionPropagated, Status: metav1.ConditionTrue},
		conditions.Requirement{Type: multiclusterv1alpha1.ConditionAvailable, Status: metav1.ConditionTrue},
	)
}

// clusterDecisions explains every member: the replicas it gets and why, or
// why none.
func clusterDecisions(mcd *multiclusterv1alpha1.MultiClusterDeployment, kind string, p *plan, members map[string]*member) []multiclusterv1alpha1.ClusterDecision {
	roles := map[string]placement.Role{}
	for _, a := range p.Decision.Assignments {
		roles[a.Cluster] = a.Role
	}
	out := make([]multiclusterv1alpha1.ClusterDecision, 0, len(p.Decision.Clusters)+len(p.Held))
	seen := map[string]bool{}
	for _, res := range p.Decision.Clusters {
		seen[res.Cluster] = true
		cd := multiclusterv1alpha1.ClusterDecision{Name: multiclusterv1alpha1.ClusterName(res.Cluster), Replicas: p.Target[res.Cluster]}
		if m := members[res.Cluster]; m != nil {
			cd.ReadyReplicas, cd.PendingReplicas = m.ReadyReplicas, m.Pending
		}
		switch {
		case slices.Contains(p.Foreign, res.Cluster):
			cd.Reason = multiclusterv1alpha1.PlacementFiltered
			cd.Message = "the member has its own " + kind + " of this namespace and name, which Meridian does not overwrite"
		case p.FailedOver[res.Cluster] > 0:
			cd.Reason = multiclusterv1alpha1.PlacementFiltered
			cd.Message = fmt.Sprintf("member not ready since %s, longer than the failover grace period; its %d replicas were placed elsewhere",
				members[res.Cluster].NotReadySince.UTC().Format(time.RFC3339), p.FailedOver[res.Cluster])
		case p.Held[res.Cluster] > 0:
			cd.Reason = lastReason(mcd, res.Cluster)
			cd.Message = fmt.Sprintf("member not ready; its %d replicas are held there until it returns", p.Held[res.Cluster])
		case p.Target[res.Cluster] > 0 && roles[res.Cluster] == "" && slices.Contains(p.Workload.Locations, res.Cluster):
			cd.Reason = multiclusterv1alpha1.PlacementPreferred
			cd.Message = "replicas moved back by the re-scheduler"
		case p.Target[res.Cluster] > 0 && roles[res.Cluster] != "":
			cd.Reason = multiclusterv1alpha1.PlacementReason(roles[res.Cluster])
			cd.Message = fmt.Sprintf("room for %d more replicas", res.Fit)
		case res.Filter != nil:
			cd.Reason = multiclusterv1alpha1.PlacementFiltered
			cd.Message = fmt.Sprintf("%s: %s", res.Filter.Plugin, res.Filter.Reason)
		default:
			cd.Reason = multiclusterv1alpha1.PlacementNotChosen
			cd.Message = fmt.Sprintf("passed the filters (room for %d replicas) but was not needed", res.Fit)
		}
		if res.Filter == nil {
			total := res.Total
			cd.Score = &total
			for _, s := range res.Scores {
				cd.PluginScores = append(cd.PluginScores, multiclusterv1alpha1.PluginScore{Plugin: s.Plugin, Score: s.Score})
			}
		}
		cd.Message = conditions.Truncate(p.Decision.LatencyOf(res.Cluster).Explain(cd.Message), 1024)
		out = append(out, cd)
	}
	for _, name := range slices.Sorted(maps.Keys(p.Held)) {
		if !seen[name] {
			out = append(out, multiclusterv1alpha1.ClusterDecision{
				Name: multiclusterv1alpha1.ClusterName(name), Replicas: p.Held[name], Reason: lastReason(mcd, name),
				Message: fmt.Sprintf("member not connected; its %d replicas are held there until it returns", p.Held[name]),
			})
		}
	}
	slices.SortFunc(out, func(a, b multiclusterv1alpha1.ClusterDecision) int {
		return strings.Compare(string(a.Name), string(b.Name))
	})
	return out
}

func lastReason(mcd *multiclusterv1alpha1.MultiClusterDeployment, cluster string) multiclusterv1alpha1.PlacementReason {
	for _, c := range mcd.Status.Clusters {
		if string(c.Name) == cluster && c.Replicas > 0 {
			return c.Reason
		}
	}
	return multiclusterv1alpha1.PlacementSelected
}

func allFiltered(d *placement.Decision) bool {
	for _, c := range d.Clusters {
		if c.Filter == nil {
			return false
		}
	}
	return true
}

// filterReasons lists why clusters were ruled out, for messages.
func filterReasons(d *placement.Decision) string {
	var parts []string
	for _, c := range d.Clusters {
		if c.Filter != nil {
			parts = append(parts, fmt.Sprintf("%s: %s", c.Cluster, c.Filter.Reason))
		}
	}
	return strings.Join(parts, "; ")
}

// summary renders replicas per cluster as "a=3,b=2".
func summary(target map[string]int32) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(target)) {
		if target[name] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", name, target[name]))
		}
	}
	return strings.Join(parts, ",")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
