package multiclusterjob

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
)

// report sums the member Jobs into status and sets Complete or Failed when
// every member Job has finished.
func (r *Reconciler) report(mcj *multiclusterv1alpha1.MultiClusterJob, members map[string]*memberJob) {
	st := &mcj.Status
	st.Active, st.Succeeded, st.Failed = 0, 0, 0
	st.Summary = summary(mcj)
	wanted, done, failed := 0, 0, 0
	var last *metav1.Time
	for _, c := range st.Clusters {
		if c.Replicas == 0 {
			continue
		}
		wanted++
		mj := members[string(c.Name)]
		if mj == nil || mj.job == nil {
			continue
		}
		st.Active += mj.job.Status.Active
		st.Succeeded += mj.job.Status.Succeeded
		st.Failed += mj.job.Status.Failed
		if t := mj.job.Status.StartTime; t != nil && (st.StartTime == nil || t.Before(st.StartTime)) {
			st.StartTime = t.DeepCopy()
		}
		if mj.Finished {
			done++
			if t := mj.job.Status.CompletionTime; t != nil && (last == nil || last.Before(t)) {
				last = t
			}
		}
		if mj.fail {
			failed++
		}
	}
	for i := range st.Clusters {
		if mj := members[string(st.Clusters[i].Name)]; mj != nil && mj.job != nil {
			st.Clusters[i].ReadyReplicas = mj.job.Status.Active
		}
	}
	switch {
	case failed > 0:
		setCondition(mcj, multiclusterv1alpha1.ConditionFailed, true, multiclusterv1alpha1.ReasonMemberJobFailed, fmt.Sprintf("%d of %d member Jobs failed", failed, wanted))
	case wanted > 0 && done == wanted:
		setCondition(mcj, multiclusterv1alpha1.ConditionComplete, true, multiclusterv1alpha1.ReasonAllMemberJobsComplete, fmt.Sprintf("%d member Jobs complete, %d pods succeeded", wanted, st.Succeeded))
		if last != nil {
			st.CompletionTime = last.DeepCopy()
		}
	default:
		setCondition(mcj, multiclusterv1alpha1.ConditionComplete, false, multiclusterv1alpha1.ReasonRunning, fmt.Sprintf("%d of %d member Jobs finished", done, wanted))
	}
}

func summary(mcj *multiclusterv1alpha1.MultiClusterJob) string {
	per := map[string]int32{}
	for _, c := range mcj.Status.Clusters {
		if c.Replicas > 0 {
			per[string(c.Name)] = c.Replicas
		}
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(per)) {
		parts = append(parts, fmt.Sprintf("%s=%d", name, per[name]))
	}
	return strings.Join(parts, ",")
}

func setCondition(mcj *multiclusterv1alpha1.MultiClusterJob, kind string, ok bool, reason, msg string) {
	conditions.Set(&mcj.Status.Conditions, mcj.Generation, kind, ok, reason, msg)
}

// setReady summarises the other conditions in Ready: a Job is ready when
// its pods are placed and no member Job failed; a complete Job stays ready.
func setReady(mcj *multiclusterv1alpha1.MultiClusterJob) {
	conditions.SetSummary(&mcj.Status.Conditions, mcj.Generation, conditions.Summary{
		Type: multiclusterv1alpha1.ConditionReady, Reason: multiclusterv1alpha1.ReasonReady,
		Message:       "placed, and no member Job failed: " + orNone(mcj.Status.Summary),
		MissingReason: multiclusterv1alpha1.ReasonNotObserved,
	},
		conditions.Requirement{Type: multiclusterv1alpha1.ConditionPlaced, Status: metav1.ConditionTrue},
		conditions.Requirement{Type: multiclusterv1alpha1.ConditionFailed, Status: metav1.ConditionFalse, MayBeAbsent: true},
	)
}
