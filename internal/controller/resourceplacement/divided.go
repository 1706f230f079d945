package resourceplacement

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterdeployment"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// placeDeployment divides a plain Deployment's replicas with the
// MultiClusterDeployment pass, on a view of it as a MultiClusterDeployment
// with the policy's placement, and writes the decision into rp's status
// and the members' sums into the Deployment's, so that kubectl get and
// kubectl rollout status work on the management cluster.
func (r *Reconciler) placeDeployment(ctx context.Context, rp *multiclusterv1alpha1.ResourcePlacement, tpl *unstructured.Unstructured, pl multiclusterv1alpha1.Placement, ov *overrider) (ctrl.Result, error) {
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tpl.Object, d); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to read Deployment %s/%s: %w", tpl.GetNamespace(), tpl.GetName(), err)
	}
	// The view's generation changes with the template's and with the
	// policy's, so that a change of either (an override rule) writes the
	// members again.
	view := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{
		Namespace: d.Namespace, Name: d.Name, UID: rp.UID, Generation: d.Generation*policyGenerations + ov.generation%policyGenerations, Labels: d.Labels,
	}}
	view.Spec.Replicas = ptr.To(ptr.Deref(d.Spec.Replicas, 1))
	view.Spec.Selector = d.Spec.Selector
	view.Spec.Template = d.Spec.Template
	view.Spec.Strategy = d.Spec.Strategy
	if d.Spec.MinReadySeconds > 0 {
		view.Spec.MinReady = &metav1.Duration{Duration: time.Duration(d.Spec.MinReadySeconds) * time.Second}
	}
	view.Spec.Placement = pl
	view.Status.Conditions = rp.Status.Conditions
	view.Status.Clusters = rp.Status.Clusters
	view.Status.Summary = rp.Status.Summary
	view.Status.ObservedGeneration = rp.Status.ObservedGeneration*policyGenerations + ov.generation%policyGenerations
	s := &multiclusterdeployment.Subject{
		MCD:       view,
		Owner:     propagation.Owner{Kind: Kind, Namespace: rp.Namespace, Name: rp.Name, UID: string(rp.UID)},
		Regarding: tpl,
		Mutate:    ov.deployment,
	}
	res, err := r.Deployments.Pass(ctx, s)
	rp.Status.Conditions = view.Status.Conditions
	rp.Status.Clusters = view.Status.Clusters
	rp.Status.Summary = view.Status.Summary
	rp.Status.ObservedGeneration = view.Status.ObservedGeneration / policyGenerations
	if c := meta.FindStatusCondition(rp.Status.Conditions, multiclusterv1alpha1.ConditionPropagated); c != nil && c.Status == metav1.ConditionFalse && errors.Is(err, errOverride) {
		c.Reason = multiclusterv1alpha1.ReasonOverrideFailed
		c.Message += "; the members keep the Deployments they have"
	}
	if werr := r.writeDeploymentStatus(ctx, d, view, s); werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// policyGenerations spaces the template's generations in the view's, so
// that the policy's fits between two.
const policyGenerations = 1 << 20

// writeDeploymentStatus sums the members into the template's status. The
// template's generation counts as observed once every member that holds
// replicas runs the current spec, as a Deployment's controller says so of
// its own ReplicaSets.
func (r *Reconciler) writeDeploymentStatus(ctx context.Context, d *appsv1.Deployment, view *multiclusterv1alpha1.MultiClusterDeployment, s *multiclusterdeployment.Subject) error {
	st := view.Status
	before := d.DeepCopy()
	d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UpdatedReplicas = st.Replicas, st.ReadyReplicas, st.AvailableReplicas, s.Updated
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
	if equalStatus(before.Status, d.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, d, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to write the status of Deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return nil
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
