package resourceplacement

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterdeployment"
)

// writeTemplateStatus sums the members into a divided template's status,
// in the fields its kind's status has. s is the pass that just ran. Every
// count is the members' own (their status), so that the sums keep the
// bounds the API server checks (ready within replicas) while members
// catch up with a scale.
func (r *Reconciler) writeTemplateStatus(ctx context.Context, tpl *unstructured.Unstructured, view *multiclusterv1alpha1.MultiClusterDeployment, s *multiclusterdeployment.Subject) error {
	var obj client.Object
	switch tpl.GetKind() {
	case "Deployment":
		obj = &appsv1.Deployment{}
	case "StatefulSet":
		obj = &appsv1.StatefulSet{}
	case "ReplicaSet":
		obj = &appsv1.ReplicaSet{}
	default:
		return nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tpl.Object, obj); err != nil {
		return fmt.Errorf("failed to read %s %s/%s: %w", tpl.GetKind(), tpl.GetNamespace(), tpl.GetName(), err)
	}
	before := obj.DeepCopyObject().(client.Object)
	var changed bool
	switch o := obj.(type) {
	case *appsv1.Deployment:
		changed = deploymentStatus(o, view.Status, s)
	case *appsv1.StatefulSet:
		changed = statefulSetStatus(o, view.Status, s)
	case *appsv1.ReplicaSet:
		changed = replicaSetStatus(o, view.Status, s)
	}
	if !changed {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, obj, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to write the status of %s %s/%s: %w", tpl.GetKind(), tpl.GetNamespace(), tpl.GetName(), err)
	}
	return nil
}

// deploymentStatus sums the members into a Deployment's status and reports
// whether it changed. The template's generation counts as observed once
// every member that holds replicas runs the current spec, as a
// Deployment's controller says so of its own ReplicaSets.
func deploymentStatus(d *appsv1.Deployment, st multiclusterv1alpha1.MultiClusterDeploymentStatus, s *multiclusterdeployment.Subject) bool {
	before := d.DeepCopy()
	d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UpdatedReplicas = s.Current, st.ReadyReplicas, st.AvailableReplicas, s.Updated
	d.Status.UnavailableReplicas = max(0, st.Replicas-st.AvailableReplicas)
	if s.Settled {
		d.Status.ObservedGeneration = d.Generation
	}
	wanted := ptr.Deref(d.Spec.Replicas, 1)
	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: "False", Reason: "MinimumReplicasUnavailable",
		Message: fmt.Sprintf("%d of %d replicas available across the members", st.AvailableReplicas, wanted)}
	if st.AvailableReplicas >= wanted {
		available.Status, available.Reason = "True", "MinimumReplicasAvailable"
	}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: "True", Reason: "ReplicaSetUpdated",
		Message: "placed by Meridian: " + orNone(st.Summary)}
	if placed := meta.FindStatusCondition(st.Conditions, multiclusterv1alpha1.ConditionPlaced); placed != nil && placed.Status == metav1.ConditionFalse {
		progressing.Message = placed.Reason + ": " + placed.Message
	}
	if s.Settled && s.Updated >= wanted && st.AvailableReplicas >= s.Updated {
		progressing.Reason = "NewReplicaSetAvailable"
	}
	d.Status.Conditions = setDeploymentCondition(d.Status.Conditions, available)
	d.Status.Conditions = setDeploymentCondition(d.Status.Conditions, progressing)
	return !equalStatus(before.Status, d.Status)
}

// statefulSetStatus sums the members into a StatefulSet's status and
// reports whether it changed. Its revisions are Meridian's (name and
// generation): the members' own differ with their overrides. The current
// revision becomes the update revision once every replica runs it, which
// is when kubectl rollout status returns.
func statefulSetStatus(ss *appsv1.StatefulSet, st multiclusterv1alpha1.MultiClusterDeploymentStatus, s *multiclusterdeployment.Subject) bool {
	before := ss.Status
	wanted := ptr.Deref(ss.Spec.Replicas, 1)
	ss.Status.Replicas, ss.Status.ReadyReplicas, ss.Status.AvailableReplicas, ss.Status.UpdatedReplicas = s.Current, st.ReadyReplicas, st.AvailableReplicas, s.Updated
	ss.Status.CurrentReplicas = max(0, s.Current-s.Updated)
	ss.Status.UpdateRevision = fmt.Sprintf("%s-%d", ss.Name, ss.Generation)
	if s.Settled {
		ss.Status.ObservedGeneration = ss.Generation
		if s.Updated >= wanted && st.ReadyReplicas >= wanted {
			ss.Status.CurrentRevision, ss.Status.CurrentReplicas = ss.Status.UpdateRevision, s.Updated
		}
	}
	return before.ObservedGeneration != ss.Status.ObservedGeneration || before.Replicas != ss.Status.Replicas || before.ReadyReplicas != ss.Status.ReadyReplicas ||
		before.AvailableReplicas != ss.Status.AvailableReplicas || before.UpdatedReplicas != ss.Status.UpdatedReplicas || before.CurrentReplicas != ss.Status.CurrentReplicas ||
		before.CurrentRevision != ss.Status.CurrentRevision || before.UpdateRevision != ss.Status.UpdateRevision
}

// replicaSetStatus sums the members into a ReplicaSet's status and reports
// whether it changed.
func replicaSetStatus(rs *appsv1.ReplicaSet, st multiclusterv1alpha1.MultiClusterDeploymentStatus, s *multiclusterdeployment.Subject) bool {
	before := rs.Status
	rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = s.Current, st.ReadyReplicas, st.AvailableReplicas
	rs.Status.FullyLabeledReplicas = s.Current
	if s.Settled {
		rs.Status.ObservedGeneration = rs.Generation
	}
	return before.ObservedGeneration != rs.Status.ObservedGeneration || before.Replicas != rs.Status.Replicas || before.ReadyReplicas != rs.Status.ReadyReplicas ||
		before.AvailableReplicas != rs.Status.AvailableReplicas || before.FullyLabeledReplicas != rs.Status.FullyLabeledReplicas
}

// setDeploymentCondition sets c in conds, keeping its transition time when
// its status did not change.
func setDeploymentCondition(conds []appsv1.DeploymentCondition, c appsv1.DeploymentCondition) []appsv1.DeploymentCondition {
	now := metav1.Now()
	for i := range conds {
		if conds[i].Type != c.Type {
			continue
		}
		if conds[i].Status == c.Status && conds[i].Reason == c.Reason && conds[i].Message == c.Message {
			return conds
		}
		c.LastUpdateTime, c.LastTransitionTime = now, conds[i].LastTransitionTime
		if conds[i].Status != c.Status {
			c.LastTransitionTime = now
		}
		conds[i] = c
		return conds
	}
	c.LastUpdateTime, c.LastTransitionTime = now, now
	return append(conds, c)
}

func equalStatus(a, b appsv1.DeploymentStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas && a.UpdatedReplicas == b.UpdatedReplicas && a.UnavailableReplicas == b.UnavailableReplicas &&
		len(a.Conditions) == len(b.Conditions) && conditionsEqual(a.Conditions, b.Conditions)
}

func conditionsEqual(a, b []appsv1.DeploymentCondition) bool {
	for i := range a {
		if a[i].Type != b[i].Type || a[i].Status != b[i].Status || a[i].Reason != b[i].Reason || a[i].Message != b[i].Message {
			return false
		}
	}
	return true
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// writeDaemonSetStatus sums the member DaemonSets of members into the
// template's status. The template's generation counts as observed once
// every member holds a copy of it that its controller observed, so that
// kubectl rollout status daemonset returns once every member's has.
func (r *Reconciler) writeDaemonSetStatus(ctx context.Context, tpl *unstructured.Unstructured, members []string, conns map[string]client.Client) error {
	ds := &appsv1.DaemonSet{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tpl.Object, ds); err != nil {
		return fmt.Errorf("failed to read DaemonSet %s/%s: %w", tpl.GetNamespace(), tpl.GetName(), err)
	}
	before := ds.DeepCopy()
	var sum appsv1.DaemonSetStatus
	observed := true
	for _, name := range members {
		c, ok := conns[name]
		if !ok {
			observed = false
			continue
		}
		m := &appsv1.DaemonSet{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(ds), m); err != nil {
			if apierrors.IsNotFound(err) {
				observed = false
				continue
			}
			return fmt.Errorf("failed to read DaemonSet %s/%s in member %q: %w", ds.Namespace, ds.Name, name, err)
		}
		st := m.Status
		sum.CurrentNumberScheduled += st.CurrentNumberScheduled
		sum.NumberMisscheduled += st.NumberMisscheduled
		sum.DesiredNumberScheduled += st.DesiredNumberScheduled
		sum.NumberReady += st.NumberReady
		sum.UpdatedNumberScheduled += st.UpdatedNumberScheduled
		sum.NumberAvailable += st.NumberAvailable
		sum.NumberUnavailable += st.NumberUnavailable
		if m.Annotations[multiclusterv1alpha1.AnnotationOwnerGeneration] != strconv.FormatInt(ds.Generation, 10) || st.ObservedGeneration < m.Generation {
			observed = false
		}
	}
	sum.ObservedGeneration, sum.CollisionCount, sum.Conditions = ds.Status.ObservedGeneration, ds.Status.CollisionCount, ds.Status.Conditions
	if observed {
		sum.ObservedGeneration = ds.Generation
	}
	ds.Status = sum
	if equality.Semantic.DeepEqual(before.Status, ds.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, ds, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to write the status of DaemonSet %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	return nil
}

// writeCronJobStatus writes into the template's status the latest schedule
// and success of its member copies (each runs its own schedule). Its
// active Jobs are the members' and are not listed.
func (r *Reconciler) writeCronJobStatus(ctx context.Context, tpl *unstructured.Unstructured, members []string, conns map[string]client.Client) error {
	cj := &batchv1.CronJob{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tpl.Object, cj); err != nil {
		return fmt.Errorf("failed to read CronJob %s/%s: %w", tpl.GetNamespace(), tpl.GetName(), err)
	}
	before := cj.DeepCopy()
	latest := func(a, b *metav1.Time) *metav1.Time {
		if b == nil || (a != nil && !a.Before(b)) {
			return a
		}
		return b.DeepCopy()
	}
	for _, name := range members {
		c, ok := conns[name]
		if !ok {
			continue
		}
		m := &batchv1.CronJob{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(cj), m); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("failed to read CronJob %s/%s in member %q: %w", cj.Namespace, cj.Name, name, err)
		}
		cj.Status.LastScheduleTime = latest(cj.Status.LastScheduleTime, m.Status.LastScheduleTime)
		cj.Status.LastSuccessfulTime = latest(cj.Status.LastSuccessfulTime, m.Status.LastSuccessfulTime)
	}
	if equality.Semantic.DeepEqual(before.Status, cj.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, cj, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to write the status of CronJob %s/%s: %w", cj.Namespace, cj.Name, err)
	}
	return nil
}
