package broker

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// releases forwards the Releases consumers write for the offers the broker
// won for them to the providers holding them, and reports back.
type releases struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=releases,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=releases/status,verbs=get;update;patch

func (r *releases) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("broker-releases").
		For(&sharingv1alpha1.Release{}).
		Complete(r)
}

// Reconcile moves one Release on: route it (routeRelease), forward it
// into the provider, and once the provider answered, end the handed-over
// offer at the release time and copy the answer into the consumer's
// Release. Each step is a create that tolerates AlreadyExists or a patch
// to a value read back, so a restarted broker repeats none of it.
func (r *releases) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rel := &sharingv1alpha1.Release{}
	if err := r.Get(ctx, req.NamespacedName, rel); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if meta.FindStatusCondition(rel.Status.Conditions, sharingv1alpha1.ReleaseDone) != nil {
		return ctrl.Result{}, nil
	}
	members, m, refusal, err := r.borrower(ctx, rel.Namespace)
	if err != nil || m == nil {
		return ctrl.Result{}, err
	}
	if refusal != "" {
		return ctrl.Result{}, r.report(ctx, rel, metav1.Condition{Type: sharingv1alpha1.ReleaseDone, Status: metav1.ConditionFalse, Reason: ReasonNotRegistered, Message: refusal}, nil)
	}
	handed := &sharingv1alpha1.Offer{}
	if err := r.reader.Get(ctx, client.ObjectKey{Namespace: rel.Namespace, Name: rel.Spec.Source.Name}, handed); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("failed to read offer %q handed to %q: %w", rel.Spec.Source.Name, m.ClusterID, err)
		}
		handed = nil
	}
	target, reason, msg, ok := routeRelease(rel, m, handed, members)
	if !ok {
		return ctrl.Result{}, r.report(ctx, rel, metav1.Condition{Type: sharingv1alpha1.ReleaseDone, Status: metav1.ConditionFalse, Reason: reason, Message: msg}, nil)
	}
	rem, err := r.remotes.Of(ctx, target.Provider.Registration)
	if err != nil {
		return ctrl.Result{}, err
	}
	there := &sharingv1alpha1.Release{
		ObjectMeta: metav1.ObjectMeta{Name: rel.Name, Namespace: rem.Namespace, Labels: map[string]string{sharingv1alpha1.LabelOnBehalfOf: string(m.ClusterID)}},
		Spec:       forwardedRelease(r.opts.BrokerID, rel, target),
	}
	if err := rem.Create(ctx, there); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, fmt.Errorf("failed to forward release %s to provider %q: %w", klog.KObj(rel), target.Provider.ClusterID, err)
		}
	}
	if err := rem.Get(ctx, client.ObjectKeyFromObject(there), there); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to read provider %q's answer to release %q: %w", target.Provider.ClusterID, target.Offer, err)
	}
	cond, at, done := releaseReport(there, target.Provider.ClusterID, rel.Generation)
	if !done {
		return ctrl.Result{RequeueAfter: 200 * time.Millisecond}, nil
	}
	if end, ok := endsAt(handed, at, r.clock.Now()); ok {
		patch := client.MergeFrom(handed.DeepCopy())
		handed.Spec.ExpiresAt = end
		if err := r.Patch(ctx, handed, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to end offer %s at its release: %w", klog.KObj(handed), err)
		}
	}
	return ctrl.Result{}, r.report(ctx, rel, cond, at)
}

// report closes the consumer's Release with cond.
func (r *releases) report(ctx context.Context, rel *sharingv1alpha1.Release, cond metav1.Condition, at *metav1.Time) error {
	patch := client.MergeFrom(rel.DeepCopy())
	cond.ObservedGeneration = rel.Generation
	meta.SetStatusCondition(&rel.Status.Conditions, cond)
	sharing.SetReady(rel)
	rel.Status.ReleasedTime = at
	if err := r.Status().Patch(ctx, rel, patch); err != nil {
		return fmt.Errorf("failed to report release %s: %w", klog.KObj(rel), err)
	}
	log.FromContext(ctx).Info("Release reported", "release", klog.KObj(rel), "reason", cond.Reason)
	return nil
}
