package broker

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// registrations writes each member's registration decision into its
// Peer's status.
type registrations struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=peers,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=peers/status,verbs=get;update;patch

func (r *registrations) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("broker-registrations").
		For(&sharingv1alpha1.Peer{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// Reconcile decides one registration.
func (r *registrations) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	p := &sharingv1alpha1.Peer{}
	if err := r.Get(ctx, req.NamespacedName, p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	ns := &corev1.Namespace{}
	if err := r.Get(ctx, client.ObjectKey{Name: p.Namespace}, ns); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if _, ok := ns.Labels[sharingv1alpha1.LabelBrokerMember]; !ok {
		return ctrl.Result{}, nil
	}
	reason, msg, ok := admit(p, memberOf(ns))
	cond := metav1.Condition{Type: sharingv1alpha1.PeerReady, Status: metav1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: p.Generation}
	phase := sharingv1alpha1.PeerPending
	switch {
	case ok && p.Spec.Disabled:
		cond.Reason, phase = sharingv1alpha1.PeerReasonDisabled, sharingv1alpha1.PeerDisabled
	case ok:
		cond.Status, phase = metav1.ConditionTrue, sharingv1alpha1.PeerEstablished
	}
	patch := client.MergeFrom(p.DeepCopy())
	meta.SetStatusCondition(&p.Status.Conditions, cond)
	p.Status.Phase, p.Status.ObservedGeneration = phase, p.Generation
	if ok && p.Status.LastSeenTime == nil {
		now := metav1.NewTime(r.clock.Now())
		p.Status.LastSeenTime = &now
	}
	if err := r.Status().Patch(ctx, p, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to write the registration decision on %s: %w", klog.KObj(p), err)
	}
	log.FromContext(ctx).V(1).Info("Registration decided", "peer", klog.KObj(p), "reason", reason)
	return ctrl.Result{}, nil
}
