package multiclusterjob

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/workload"
)

// place decides, with decide.Job, where the job's parallel pods that have
// no member Job go, on a live snapshot that reserves what earlier decisions
// assumed.
func (r *Reconciler) place(ctx context.Context, s *Subject, members map[string]*memberJob) (*decide.JobPlan, error) {
	mcj := s.MCJ
	w, err := workload.New(s.Key(), placement.KindJob, ptr.Deref(mcj.Spec.Parallelism, 1), &mcj.Spec.Template.Spec, mcj.Spec.Placement)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", placement.ErrInvalidWorkload, err)
	}
	// From the snapshot to the assumption the decision takes its turn
	// (placement.Assumptions.Turn), with every other workload's.
	done := r.Assumptions.Turn()
	defer done()
	in := decide.JobInput{
		Workload: w, Completions: mcj.Spec.Completions, Members: make(map[string]decide.JobMember, len(members)),
		Snapshot: r.Inventory.SnapshotFor(nil, r.Assumptions), Now: r.Clock.Now(),
		Timing: decide.Timing{PendingGrace: r.PendingGrace, UnplacedRetry: r.Retry},
	}
	for name, m := range members {
		in.Members[name] = m.JobMember
	}
	if cs := mcj.Spec.CarbonShift; cs != nil {
		in.Shift = &decide.JobShift{Deadline: cs.Deadline.Time, Duration: cs.ExpectedDuration.Duration}
	}
	if t := mcj.Status.PlannedStart; t != nil {
		in.PlannedStart = t.Time
	}
	if r.Carbon != nil {
		if c := r.Carbon(); c != nil {
			in.Snapshot.Carbon, in.Snapshot.CarbonAt = c, in.Now
		}
	}
	p, err := decide.Job(ctx, r.Framework, in)
	if err != nil {
		return nil, err
	}
	p.Assume(r.Assumptions)
	return p, nil
}

// act deletes the member Jobs the plan moves, creates the new ones, and
// records the decision in status.clusters.
func (r *Reconciler) act(ctx context.Context, s *Subject, p *decide.JobPlan, members map[string]*memberJob) error {
	mcj := s.MCJ
	var errs []error
	for _, name := range p.Delete {
		m := members[name]
		if err := m.client.Delete(ctx, m.job, client.PropagationPolicy("Background")); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
			continue
		}
		log.FromContext(ctx).Info("Deleted member Job: its pods stayed Unschedulable", "member", name, "job", klog.KObj(m.job))
		r.event(s.Regarding, corev1.EventTypeWarning, "Moved", "the pods of member %s stayed Unschedulable beyond %s and none ran: its %d parallel pods are placed elsewhere",
			name, r.PendingGrace, m.Parallelism)
		m.job, m.Exists = nil, false
	}
	for _, name := range slices.Sorted(maps.Keys(p.Create)) {
		m, share := members[name], p.Create[name]
		if m == nil {
			continue
		}
		j, err := s.build(name, share)
		if err == nil {
			err = propagation.Apply(ctx, m.client, j)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
			continue
		}
		log.FromContext(ctx).Info("Wrote member Job", "member", name, "job", klog.KObj(j), "parallelism", share.Parallelism, "completions", ptr.Deref(share.Completions, 0))
		m.job, m.Exists, m.Parallelism, m.Completions = j, true, share.Parallelism, share.Completions
	}
	recordDecision(mcj, p, members)
	if p.StartReason != "" {
		r.event(s.Regarding, corev1.EventTypeNormal, multiclusterv1alpha1.ReasonWaitingForGreenerStart, "start planned for %s: %s", p.PlannedStart.UTC().Format(time.RFC3339), p.StartReason)
	}
	if len(p.Create) > 0 {
		r.event(s.Regarding, corev1.EventTypeNormal, "Placed", "Pods placed: %s", mcj.Status.Summary)
	}
	return errors.Join(errs...)
}

// recordDecision writes, per member, the parallel pods its Job runs and
// why, and the Placed condition.
func recordDecision(mcj *multiclusterv1alpha1.MultiClusterJob, p *decide.JobPlan, members map[string]*memberJob) {
	st := &mcj.Status
	parallelism := ptr.Deref(mcj.Spec.Parallelism, 1)
	previous := map[string]multiclusterv1alpha1.ClusterDecision{}
	for _, c := range st.Clusters {
		previous[string(c.Name)] = c
	}
	roles, results := map[string]placement.Role{}, map[string]placement.ClusterResult{}
	if d := p.Decision; d != nil {
		for _, a := range d.Assignments {
			roles[a.Cluster] = a.Role
		}
		for _, res := range d.Clusters {
			results[res.Cluster] = res
		}
	}
	st.Clusters = nil
	for _, name := range slices.Sorted(maps.Keys(members)) {
		m := members[name]
		cd := multiclusterv1alpha1.ClusterDecision{Name: multiclusterv1alpha1.ClusterName(name)}
		res, decided := results[name]
		switch {
		case m.Exists && p.Create[name].Parallelism > 0:
			cd.Replicas, cd.Reason = m.Parallelism, multiclusterv1alpha1.PlacementReason(roles[name])
			cd.Message = p.Decision.LatencyOf(res.Cluster).Explain(fmt.Sprintf("room for %d more pods", res.Fit))
		case m.Exists:
			cd.Replicas, cd.Reason, cd.Message = m.Parallelism, multiclusterv1alpha1.PlacementSelected, "member Job runs its share"
			if prev, ok := previous[name]; ok && prev.Replicas > 0 {
				cd.Reason, cd.Message = prev.Reason, prev.Message
			}
		case slices.Contains(p.Overdue, name):
			cd.Reason = multiclusterv1alpha1.PlacementFiltered
			cd.Message = "its pods stayed Unschedulable beyond the grace period; they were placed elsewhere"
		case decided && res.Filter != nil:
			cd.Reason, cd.Message = multiclusterv1alpha1.PlacementFiltered, p.Decision.LatencyOf(res.Cluster).Explain(res.Filter.Plugin+": "+res.Filter.Reason)
		case decided:
			cd.Reason, cd.Message = multiclusterv1alpha1.PlacementNotChosen, p.Decision.LatencyOf(res.Cluster).Explain(fmt.Sprintf("passed the filters (room for %d pods) but was not needed", res.Fit))
		default:
			prev, ok := previous[name]
			if !ok {
				continue
			}
			cd.Reason, cd.Message = prev.Reason, prev.Message
		}
		if decided && res.Filter == nil {
			total := res.Total
			cd.Score = &total
		}
		st.Clusters = append(st.Clusters, cd)
	}
	st.UnplacedReplicas = p.Unplaced
	st.Summary = summary(mcj)
	if !p.PlannedStart.IsZero() && st.PlannedStart == nil {
		st.PlannedStart = &metav1.Time{Time: p.PlannedStart}
		st.PlannedStartReason = conditions.Truncate(p.StartReason, 1024)
		if p.ExpectedGrams > 0 || p.BaselineGrams > 0 {
			expected, baseline := carbon.Grams(p.ExpectedGrams), carbon.Grams(p.BaselineGrams)
			st.Emissions = &multiclusterv1alpha1.JobEmissions{ExpectedGrams: &expected, BaselineGrams: &baseline}
		}
	}
	switch {
	case p.Waiting:
		setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonWaitingForGreenerStart,
			fmt.Sprintf("the job waits for its greener start %s (status.plannedStartReason says why)", p.PlannedStart.UTC().Format(time.RFC3339)))
	case p.Unplaced == parallelism:
		setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInsufficientCapacity,
			fmt.Sprintf("none of the %d parallel pods fits a cluster yet; they are placed as room appears", parallelism))
	case p.Unplaced > 0:
		setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInsufficientCapacity,
			fmt.Sprintf("%d of %d parallel pods fit no cluster yet; the job runs with %d, and the rest are placed as room appears", p.Unplaced, parallelism, parallelism-p.Unplaced))
	default:
		setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, true, multiclusterv1alpha1.ReasonPlaced, "every parallel pod has a member Job: "+orNone(st.Summary))
	}
}

func (r *Reconciler) event(regarding runtime.Object, kind, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(regarding, nil, kind, reason, "Place", format, args...)
	}
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none"
	}
	return s
}
