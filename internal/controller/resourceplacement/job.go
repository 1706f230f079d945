package resourceplacement

import (
	"context"
	"errors"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterjob"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// ReasonSuspended: a plain Job with spec.suspend true is not placed yet.
const ReasonSuspended = "Suspended"

// placeJob divides a plain Job's parallel pods (and its completions in
// proportion) with the MultiClusterJob pass, on a view of it as a
// MultiClusterJob with the policy's placement; each member gets the Job
// unchanged but for its share and the policy's overrides. It writes the
// decision into rp's status and the members' sums into the Job's, so that
// kubectl get job and kubectl wait --for=condition=complete work on the
// management cluster.
func (r *Reconciler) placeJob(ctx context.Context, rp *multiclusterv1alpha1.ResourcePlacement, tpl *unstructured.Unstructured, pl multiclusterv1alpha1.Placement, ov *overrider) (ctrl.Result, error) {
	job := &batchv1.Job{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tpl.Object, job); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to read Job %s/%s: %w", tpl.GetNamespace(), tpl.GetName(), err)
	}
	if ptr.Deref(job.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion {
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec,
			"spec.completionMode: an Indexed Job's completion indexes are not divided over clusters (each member Job would run indexes from 0 again); use NonIndexed, or a MultiClusterJob")
		return ctrl.Result{}, nil // the template must change first
	}
	if ptr.Deref(job.Spec.Suspend, false) && len(holding(rp)) == 0 {
		// A queue (Kueue) or its user starts it by setting suspend false,
		// which re-queues the placement: nothing is placed or reserved
		// before.
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, false, ReasonSuspended,
			"spec.suspend is true: the Job is placed once it is false")
		return ctrl.Result{}, nil
	}
	view := &multiclusterv1alpha1.MultiClusterJob{ObjectMeta: metav1.ObjectMeta{
		Namespace: job.Namespace, Name: job.Name, UID: rp.UID, Generation: job.Generation, Labels: job.Labels,
	}}
	view.Spec.Parallelism = ptr.To(ptr.Deref(job.Spec.Parallelism, 1))
	view.Spec.Completions = job.Spec.Completions
	view.Spec.Template = job.Spec.Template
	view.Spec.Placement = pl
	view.Status.Conditions = rp.Status.Conditions
	view.Status.Clusters = rp.Status.Clusters
	view.Status.Summary = rp.Status.Summary
	owner := propagation.Owner{Kind: Kind, Namespace: rp.Namespace, Name: rp.Name, UID: string(rp.UID)}
	s := &multiclusterjob.Subject{
		MCJ:       view,
		Owner:     owner,
		Regarding: tpl,
		Build: func(cluster string, share decide.JobShare) (*batchv1.Job, error) {
			u, err := propagation.JobCopy(tpl, owner, share.Parallelism, share.Completions)
			if err != nil {
				return nil, err
			}
			if err := ov.apply(cluster, u); err != nil {
				return nil, err
			}
			j := &batchv1.Job{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, j); err != nil {
				return nil, fmt.Errorf("job %s/%s after the overrides: %w", u.GetNamespace(), u.GetName(), err)
			}
			j.SetGroupVersionKind(batchv1.SchemeGroupVersion.WithKind("Job"))
			return j, nil
		},
	}
	res, err := r.Jobs.Pass(ctx, s)
	rp.Status.Conditions = view.Status.Conditions
	rp.Status.Clusters = view.Status.Clusters
	rp.Status.Summary = view.Status.Summary
	if !s.Observed {
		return res, err
	}
	switch {
	case err != nil && errors.Is(err, errOverride):
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPropagated, false, multiclusterv1alpha1.ReasonOverrideFailed,
			conditions.Truncate(err.Error(), 4096))
	case err != nil:
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPropagated, false, multiclusterv1alpha1.ReasonApplyFailed,
			conditions.Truncate(err.Error(), 4096))
	default:
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPropagated, true, multiclusterv1alpha1.ReasonPropagated,
			"the members run the member Jobs the decision asks for: "+orNone(rp.Status.Summary))
	}
	if werr := r.writeJobStatus(ctx, job, view.Status); werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// writeJobStatus sums the member Jobs into the template Job's status, in
// the transitions the API server allows a Job's status: the start time
// set once, the counters never decreasing, SuccessCriteriaMet before
// Complete and FailureTarget before Failed, no pod active once finished.
// A finished Job's status is not written again.
func (r *Reconciler) writeJobStatus(ctx context.Context, job *batchv1.Job, st multiclusterv1alpha1.MultiClusterJobStatus) error {
	if finishedJob(job) {
		return nil
	}
	before := job.DeepCopy()
	js := &job.Status
	js.Active = st.Active
	js.Succeeded, js.Failed = max(js.Succeeded, st.Succeeded), max(js.Failed, st.Failed)
	if js.StartTime == nil && st.StartTime != nil {
		js.StartTime = st.StartTime.DeepCopy()
	}
	now := metav1.Now()
	add := func(t batchv1.JobConditionType, reason, msg string) {
		js.Conditions = append(js.Conditions, batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg,
			LastProbeTime: now, LastTransitionTime: now})
	}
	switch {
	case js.StartTime == nil:
		// Finished members without a start time cannot finish the
		// template: wait for the next pass.
	case meta.IsStatusConditionTrue(st.Conditions, multiclusterv1alpha1.ConditionFailed):
		c := meta.FindStatusCondition(st.Conditions, multiclusterv1alpha1.ConditionFailed)
		js.Active = 0
		add(batchv1.JobFailureTarget, c.Reason, c.Message)
		add(batchv1.JobFailed, c.Reason, c.Message)
	case meta.IsStatusConditionTrue(st.Conditions, multiclusterv1alpha1.ConditionComplete) && st.CompletionTime != nil:
		c := meta.FindStatusCondition(st.Conditions, multiclusterv1alpha1.ConditionComplete)
		js.Active = 0
		js.CompletionTime = st.CompletionTime.DeepCopy()
		if js.CompletionTime.Before(js.StartTime) {
			js.CompletionTime = js.StartTime.DeepCopy()
		}
		add(batchv1.JobSuccessCriteriaMet, c.Reason, c.Message)
		add(batchv1.JobComplete, c.Reason, c.Message)
	}
	if equalJobStatus(before.Status, job.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, job, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to write the status of Job %s/%s: %w", job.Namespace, job.Name, err)
	}
	return nil
}

// finishedJob reports whether a Job's status says Complete or Failed.
func finishedJob(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
			return true
		}
	}
	return false
}

func equalJobStatus(a, b batchv1.JobStatus) bool {
	return a.Active == b.Active && a.Succeeded == b.Succeeded && a.Failed == b.Failed && ptr.Equal(a.StartTime, b.StartTime) &&
		ptr.Equal(a.CompletionTime, b.CompletionTime) && len(a.Conditions) == len(b.Conditions)
}
