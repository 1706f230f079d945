package resourceplacement

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterdeployment"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/workload"
)

// placeDivided divides a plain Deployment's, StatefulSet's or
// ReplicaSet's replicas with the MultiClusterDeployment pass, on a view of
// it as a MultiClusterDeployment with the policy's placement; each member
// gets the template unchanged but for its share of the replicas and the
// policy's overrides. It writes the decision into rp's status and the
// members' sums into the template's, so that kubectl get and kubectl
// rollout status work on the management cluster.
func (r *Reconciler) placeDivided(ctx context.Context, rp *multiclusterv1alpha1.ResourcePlacement, tpl *unstructured.Unstructured, pl multiclusterv1alpha1.Placement, ov *overrider) (ctrl.Result, error) {
	view, err := viewOf(tpl)
	if err != nil {
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec, err.Error())
		return ctrl.Result{}, nil // the template must change first
	}
	// The view's generation changes with the template's and with the
	// policy's, so that a change of either (an override rule) writes the
	// members again.
	view.UID = rp.UID
	view.Generation = tpl.GetGeneration()*policyGenerations + ov.generation%policyGenerations
	view.Spec.Placement = pl
	view.Status.Conditions = rp.Status.Conditions
	view.Status.Clusters = rp.Status.Clusters
	view.Status.Summary = rp.Status.Summary
	view.Status.ObservedGeneration = rp.Status.ObservedGeneration*policyGenerations + ov.generation%policyGenerations
	owner := propagation.Owner{Kind: Kind, Namespace: rp.Namespace, Name: rp.Name, UID: string(rp.UID)}
	s := &multiclusterdeployment.Subject{
		MCD:       view,
		Owner:     owner,
		Regarding: tpl,
		Kind:      tpl.GroupVersionKind(),
		Build: func(cluster string, replicas int32) (client.Object, error) {
			obj, err := propagation.DividedCopy(tpl, owner, view.Generation, replicas)
			if err != nil {
				return nil, err
			}
			if err := ov.apply(cluster, obj); err != nil {
				return nil, err
			}
			return obj, nil
		},
	}
	res, err := r.Deployments.Pass(ctx, s)
	rp.Status.Conditions = view.Status.Conditions
	rp.Status.Clusters = view.Status.Clusters
	rp.Status.Summary = view.Status.Summary
	rp.Status.ObservedGeneration = view.Status.ObservedGeneration / policyGenerations
	if c := meta.FindStatusCondition(rp.Status.Conditions, multiclusterv1alpha1.ConditionPropagated); c != nil && c.Status == metav1.ConditionFalse && errors.Is(err, errOverride) {
		c.Reason = multiclusterv1alpha1.ReasonOverrideFailed
		c.Message += "; the members keep the workloads they have"
	}
	if !s.Reported {
		return res, err // the pass stopped before it read the members: their sums are not known
	}
	if werr := r.writeTemplateStatus(ctx, tpl, view, s); werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// viewOf returns the MultiClusterDeployment the pass sees in a divided
// template: its name, labels, replicas, selector, pod template and
// minReadySeconds.
func viewOf(tpl *unstructured.Unstructured) (*multiclusterv1alpha1.MultiClusterDeployment, error) {
	view := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{
		Namespace: tpl.GetNamespace(), Name: tpl.GetName(), Labels: tpl.GetLabels(),
	}}
	replicas, found, err := unstructured.NestedInt64(tpl.Object, "spec", "replicas")
	if err != nil {
		return nil, fmt.Errorf("%s %s: spec.replicas: %w", tpl.GetKind(), klog.KObj(tpl), err)
	}
	if !found {
		replicas = 1
	}
	view.Spec.Replicas = ptr.To(int32(replicas))
	if sel, found, err := unstructured.NestedMap(tpl.Object, "spec", "selector"); err != nil {
		return nil, fmt.Errorf("%s %s: spec.selector: %w", tpl.GetKind(), klog.KObj(tpl), err)
	} else if found {
		view.Spec.Selector = &metav1.LabelSelector{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(sel, view.Spec.Selector); err != nil {
			return nil, fmt.Errorf("%s %s: spec.selector: %w", tpl.GetKind(), klog.KObj(tpl), err)
		}
	}
	t, err := workload.PodTemplateOf(tpl)
	if err != nil {
		return nil, err
	}
	view.Spec.Template = *t
	minReady, _, err := unstructured.NestedInt64(tpl.Object, "spec", "minReadySeconds")
	if err != nil {
		return nil, fmt.Errorf("%s %s: spec.minReadySeconds: %w", tpl.GetKind(), klog.KObj(tpl), err)
	}
	if minReady > 0 {
		view.Spec.MinReady = &metav1.Duration{Duration: time.Duration(minReady) * time.Second}
	}
	return view, nil
}

// policyGenerations spaces the template's generations in the view's, so
// that the policy's fits between two.
const policyGenerations = 1 << 20
