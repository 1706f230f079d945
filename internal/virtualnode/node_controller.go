package virtualnode

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// podNodeIndex indexes the consumer's pods by spec.nodeName.
const podNodeIndex = "spec.nodeName"

// NodeReconciler keeps the virtual nodes of one provider's advertisements:
// it reconciles Advertisements and derives their nodes from them on every
// pass, so a restart neither loses nor duplicates a node.
type NodeReconciler struct {
	Client  client.Client
	Options Options
}

// SetupWithManager registers the reconciler. Virtual nodes and Peers
// trigger the advertisements they belong to.
func (r *NodeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := r.Options.defaults(); err != nil {
		return err
	}
	if err := indexPodsByNode(mgr); err != nil {
		return err
	}
	ofProvider := predicate.NewPredicateFuncs(func(o client.Object) bool {
		adv, ok := o.(*sharingv1alpha1.Advertisement)
		return ok && adv.Spec.ClusterID == r.Options.ProviderID
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&sharingv1alpha1.Advertisement{}, builder.WithPredicates(ofProvider)).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.advertisementOfNode)).
		Watches(&sharingv1alpha1.Peer{}, handler.EnqueueRequestsFromMapFunc(r.advertisementsOfPeer)).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Options.MaxConcurrentReconciles}).
		Named("virtualnode-" + string(r.Options.ProviderID)).
		Complete(r)
}

var (
	indexedMu sync.Mutex
	indexed   = map[client.FieldIndexer]bool{}
)

// IndexPods adds the index of pods by node that the virtual nodes and the
// pod reflector use to mgr's cache, once per cache: Setup may run once per
// provider on the same manager, also after it started, when an index can
// no longer be added, so an agent that adds providers later calls
// IndexPods before starting the manager.
func IndexPods(mgr ctrl.Manager) error { return indexPodsByNode(mgr) }

func indexPodsByNode(mgr ctrl.Manager) error {
	indexedMu.Lock()
	defer indexedMu.Unlock()
	fi := mgr.GetFieldIndexer()
	if indexed[fi] {
		return nil
	}
	if err := fi.IndexField(context.Background(), &corev1.Pod{}, podNodeIndex, func(o client.Object) []string {
		if n := o.(*corev1.Pod).Spec.NodeName; n != "" {
			return []string{n}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("failed to index pods by node: %w", err)
	}
	indexed[fi] = true
	return nil
}

func (r *NodeReconciler) advertisementOfNode(_ context.Context, o client.Object) []reconcile.Request {
	l := o.GetLabels()
	if l[sharingv1alpha1.LabelVirtualNode] != "true" || l[sharingv1alpha1.LabelProvider] != string(r.Options.ProviderID) || l[sharingv1alpha1.LabelAdvertisement] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{
		Namespace: o.GetAnnotations()[AnnotationAdvertisementNamespace], Name: l[sharingv1alpha1.LabelAdvertisement],
	}}}
}

func (r *NodeReconciler) advertisementsOfPeer(ctx context.Context, o client.Object) []reconcile.Request {
	peer := o.(*sharingv1alpha1.Peer)
	var list sharingv1alpha1.AdvertisementList
	if err := r.Client.List(ctx, &list, client.InNamespace(peer.Spec.Namespace)); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list advertisements of a peer", "peer", klog.KObj(peer))
		return nil
	}
	var reqs []reconcile.Request
	for _, a := range list.Items {
		if a.Spec.ClusterID == r.Options.ProviderID {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: a.Namespace, Name: a.Name}})
		}
	}
	return reqs
}

// Reconcile observes an advertisement, its peer and its nodes, plans the
// nodes with PlanNodes, and makes them so: creates and updates the nodes
// that should exist with their leases, and cordons, drains and deletes the
// others. The advertisement carries no finalizer: the provider owns it,
// and a node whose advertisement is gone is found by its labels.
func (r *NodeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	logger := log.FromContext(ctx)
	now := r.Options.Clock.Now()

	adv := &sharingv1alpha1.Advertisement{}
	if err := r.Client.Get(ctx, req.NamespacedName, adv); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("failed to get advertisement %s: %w", req, err)
		}
		adv = nil
	}
	if adv != nil && adv.Spec.ClusterID != r.Options.ProviderID {
		return ctrl.Result{}, nil
	}
	existing, err := r.nodesOf(ctx, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, err
	}
	peer, err := r.peerOf(ctx, req.Namespace)
	if err != nil {
		return ctrl.Result{}, err
	}

	plan, err := PlanNodes(adv, peer, existing, now, r.Options)
	if err != nil {
		// An invalid advertisement is the provider's to fix; its nodes are
		// drained as if it were refused.
		logger.Info("Advertisement cannot be sliced", "advertisement", klog.KObj(adv), "error", err.Error())
		plan, _ = PlanNodes(nil, peer, existing, now, r.Options)
	}

	if adv != nil {
		before := adv.DeepCopy()
		defer func() {
			adv.Status.VirtualNodes = int32(len(plan.Nodes))
			if adv.Status.VirtualNodes == before.Status.VirtualNodes {
				return
			}
			if err := r.Client.Status().Patch(ctx, adv, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
				retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of advertisement %s: %w", req, err))
			}
		}()
	}

	byName := map[string]*corev1.Node{}
	for i := range existing {
		byName[existing[i].Name] = &existing[i]
	}
	var errs []error
	for i := range plan.Nodes {
		if err := r.ensureNode(ctx, &plan.Nodes[i], byName[plan.Nodes[i].Name], now); err != nil {
			errs = append(errs, err)
		}
	}
	draining := false
	for _, name := range plan.Drain {
		gone, err := r.drain(ctx, byName[name], plan.Reason)
		if err != nil {
			errs = append(errs, err)
		}
		draining = draining || !gone
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}

	next := r.Options.LeaseDuration / 4
	if draining {
		next = min(next, r.Options.DrainPoll)
	}
	if !plan.RecheckAt.IsZero() {
		next = min(next, max(plan.RecheckAt.Sub(now), 0)+time.Millisecond)
	}
	if len(plan.Nodes) == 0 && !draining && plan.RecheckAt.IsZero() {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: next}, nil
}

// nodesOf lists the virtual nodes made from the advertisement key names.
func (r *NodeReconciler) nodesOf(ctx context.Context, key types.NamespacedName) ([]corev1.Node, error) {
	var list corev1.NodeList
	if err := r.Client.List(ctx, &list, client.MatchingLabels{
		sharingv1alpha1.LabelVirtualNode:   "true",
		sharingv1alpha1.LabelProvider:      string(r.Options.ProviderID),
		sharingv1alpha1.LabelAdvertisement: key.Name,
	}); err != nil {
		return nil, fmt.Errorf("failed to list virtual nodes of advertisement %s: %w", key, err)
	}
	var out []corev1.Node
	for _, n := range list.Items {
		if n.Annotations[AnnotationAdvertisementNamespace] == key.Namespace {
			out = append(out, n)
		}
	}
	return out, nil
}

// peerOf is the Peer that writes into namespace, or nil.
func (r *NodeReconciler) peerOf(ctx context.Context, namespace string) (*sharingv1alpha1.Peer, error) {
	var list sharingv1alpha1.PeerList
	if err := r.Client.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("failed to list peers: %w", err)
	}
	for i := range list.Items {
		if list.Items[i].Spec.Namespace == namespace {
			return &list.Items[i], nil
		}
	}
	return nil, nil
}
