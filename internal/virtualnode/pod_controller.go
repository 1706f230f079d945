package virtualnode

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// PodReflector is the kubelet of one provider's virtual nodes: it copies
// every consumer pod bound to them into the provider as a twin, reports
// the twin's status back, and propagates deletion both ways. Twins are
// named after their pods in TwinNamespace and carry the pod's UID, so a
// restarted reflector finds each twin again and never makes a second.
type PodReflector struct {
	// Consumer reads (from its cache) and writes the consumer's pods;
	// ConsumerReader reads ConfigMaps and Secrets without caching them all.
	Consumer       client.Client
	ConsumerReader client.Reader
	// Provider writes twins; ProviderReader confirms a twin is gone before
	// the consumer pod is failed for it; ProviderCache is watched for twins.
	Provider       client.Client
	ProviderReader client.Reader
	ProviderCache  cache.Cache
	Options        Options

	copies copies
}

// SetupWithManager registers the reflector on the consumer's manager, with
// a watch on the provider's twins of this consumer.
func (r *PodReflector) SetupWithManager(mgr ctrl.Manager) error {
	if err := r.Options.defaults(); err != nil {
		return err
	}
	if err := indexPodsByNode(mgr); err != nil {
		return err
	}
	twins := source.Kind(r.ProviderCache, &corev1.Pod{}, handler.TypedEnqueueRequestsFromMapFunc(r.podOfTwin))
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.Pod{}).
		WatchesRawSource(twins).
		WatchesMetadata(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.podsReferencing(kindConfigMap))).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.podsReferencing(kindSecret))).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Options.MaxConcurrentReconciles}).
		Named("podreflector-" + string(r.Options.ProviderID)).
		Complete(r)
}

// podOfTwin maps a twin of this consumer to its consumer pod.
func (r *PodReflector) podOfTwin(_ context.Context, twin *corev1.Pod) []reconcile.Request {
	if twin.Labels[sharingv1alpha1.LabelConsumer] != string(r.Options.ConsumerID) {
		return nil
	}
	ns, name, ok := splitOrigin(twin.Annotations[AnnotationOrigin])
	if !ok {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}

// Reconcile reflects one consumer pod.
func (r *PodReflector) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	logger := log.FromContext(ctx)
	twinKey := client.ObjectKey{Namespace: TwinNamespace(r.Options.ConsumerID, req.Namespace), Name: req.Name}

	pod := &corev1.Pod{}
	if err := r.Consumer.Get(ctx, req.NamespacedName, pod); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("failed to get pod %s: %w", req, err)
		}
		// The pod is gone (or force-deleted): so goes its twin, and what
		// only it referenced.
		_, existed, err := r.deleteTwin(ctx, twinKey, "")
		if err != nil || !existed {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.collectCopies(ctx, twinKey.Namespace)
	}
	if IsTwin(pod) || !r.ours(ctx, pod) {
		return ctrl.Result{}, nil
	}

	twin, err := r.twinOf(ctx, twinKey, pod.UID)
	if err != nil {
		return ctrl.Result{}, err
	}

	if !pod.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, pod, twinKey)
	}

	before := pod.DeepCopy()
	defer func() {
		if equality.Semantic.DeepEqual(before.Status, pod.Status) {
			return
		}
		if err := r.Consumer.Status().Patch(ctx, pod, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil && !apierrors.IsNotFound(err) {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of pod %s: %w", klog.KObj(pod), err))
		}
	}()

	now := metav1.NewTime(r.Options.Clock.Now())
	if twin == nil && !isTerminal(pod.Status.Phase) {
		if hasReflected(pod) {
			// The cache may lag behind a twin just made: ask the provider.
			live := &corev1.Pod{}
			if err := r.ProviderReader.Get(ctx, twinKey, live); err == nil && live.Labels[LabelOriginUID] == string(pod.UID) {
				twin = live
			} else if err != nil && !apierrors.IsNotFound(err) {
				return ctrl.Result{}, fmt.Errorf("failed to get twin %s: %w", twinKey, err)
			} else if err := r.collectCopies(ctx, twinKey.Namespace); err != nil {
				return ctrl.Result{}, err
			}
		} else {
			created, err := r.createTwin(ctx, pod)
			if err != nil {
				return ctrl.Result{}, err
			}
			logger.V(1).Info("Reflected pod into provider", "pod", klog.KObj(pod), "twin", klog.KObj(created))
			pod.Status = MarkReflected(pod, now)
			twin = created
		}
	} else if twin != nil && !isTerminal(pod.Status.Phase) {
		if err := r.reflectReferences(ctx, pod, twinKey.Namespace); err != nil {
			return ctrl.Result{}, err
		}
	}
	pod.Status = ConsumerStatus(pod, twin, now)
	return ctrl.Result{}, nil
}

// ours reports whether pod is bound to one of this provider's virtual
// nodes, or was reflected by this reflector before its node went away.
func (r *PodReflector) ours(ctx context.Context, pod *corev1.Pod) bool {
	if pod.Spec.NodeName == "" {
		return false
	}
	node := &corev1.Node{}
	if err := r.Consumer.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node); err != nil {
		return hasReflected(pod) && apierrors.IsNotFound(err)
	}
	return node.Labels[sharingv1alpha1.LabelVirtualNode] == "true" && node.Labels[sharingv1alpha1.LabelProvider] == string(r.Options.ProviderID)
}

// twinOf is the twin of the pod with uid, from the provider's cache, or
// nil. A twin of an earlier pod of the same name is deleted first.
func (r *PodReflector) twinOf(ctx context.Context, key client.ObjectKey, uid types.UID) (*corev1.Pod, error) {
	twin := &corev1.Pod{}
	if err := r.Provider.Get(ctx, key, twin); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("failed to get twin %s: %w", key, err)
	}
	if twin.Labels[LabelOriginUID] != string(uid) {
		if _, _, err := r.deleteTwin(ctx, key, twin.Labels[LabelOriginUID]); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("twin %s belongs to an earlier pod %s; deleted it, will create anew", key, twin.Labels[LabelOriginUID])
	}
	return twin, nil
}

// reconcileDelete deletes the twin of a terminating pod, then the pod
// itself, as kubelet confirms a deletion once the containers stopped.
func (r *PodReflector) reconcileDelete(ctx context.Context, pod *corev1.Pod, twinKey client.ObjectKey) error {
	gone, existed, err := r.deleteTwin(ctx, twinKey, string(pod.UID))
	if err != nil || !gone {
		return err
	}
	if existed {
		if err := r.collectCopies(ctx, twinKey.Namespace); err != nil {
			return err
		}
	}
	if err := r.Consumer.Delete(ctx, pod, client.GracePeriodSeconds(0), client.Preconditions{UID: &pod.UID}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to confirm deletion of pod %s: %w", klog.KObj(pod), err)
	}
	log.FromContext(ctx).V(1).Info("Pod and its twin deleted", "pod", klog.KObj(pod))
	return nil
}

// deleteTwin deletes the twin at key when it is this consumer's (and, if
// uid is set, that pod's), and reports whether it is gone and whether
// there was one.
func (r *PodReflector) deleteTwin(ctx context.Context, key client.ObjectKey, uid string) (gone, existed bool, _ error) {
	twin := &corev1.Pod{}
	if err := r.ProviderReader.Get(ctx, key, twin); err != nil {
		if apierrors.IsNotFound(err) {
			return true, false, nil
		}
		return false, false, fmt.Errorf("failed to get twin %s: %w", key, err)
	}
	if twin.Labels[sharingv1alpha1.LabelConsumer] != string(r.Options.ConsumerID) || (uid != "" && twin.Labels[LabelOriginUID] != uid) {
		return true, false, nil
	}
	// The provider's kubelet stops the containers; the twin is gone for the
	// consumer once deletion started, so the consumer pod need not wait for
	// the provider's grace period.
	if !twin.DeletionTimestamp.IsZero() {
		return true, true, nil
	}
	if err := r.Provider.Delete(ctx, twin, client.Preconditions{UID: &twin.UID}); err != nil && !apierrors.IsNotFound(err) {
		return false, true, fmt.Errorf("failed to delete twin %s: %w", key, err)
	}
	return true, true, nil
}

func splitOrigin(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:], i > 0 && i < len(s)-1
		}
	}
	return "", "", false
}
