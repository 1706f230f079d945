package virtualnode

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// OfferNodeReconciler keeps the virtual nodes of the auctions this
// consumer won from one provider. It reconciles the consumer's own Quotes
// (in Options.AuctionNamespace) and derives their nodes on every pass with
// PlanOfferNodes, reading the provider's answer to the acknowledgement and
// any Release from Options.ProviderNamespace in the provider, so a restart
// neither loses nor duplicates a node.
type OfferNodeReconciler struct {
	// Nodes makes, heartbeats and drains the nodes, as for advertisements.
	Nodes *NodeReconciler
	// ProviderReader reads Acknowledgements and Releases in the provider.
	ProviderReader client.Reader
}

// SetupWithManager registers the reconciler: Quotes of auctions, the
// Offers they name and the nodes made from them trigger it.
func (r *OfferNodeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	o := &r.Nodes.Options
	if err := o.defaults(); err != nil {
		return err
	}
	if err := indexPodsByNode(mgr); err != nil {
		return err
	}
	auctions := predicate.NewPredicateFuncs(func(q client.Object) bool {
		return q.GetNamespace() == o.AuctionNamespace && q.GetLabels()[LabelAuction] == "true"
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&sharingv1alpha1.Quote{}, builder.WithPredicates(auctions)).
		Watches(&sharingv1alpha1.Offer{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
			off := obj.(*sharingv1alpha1.Offer)
			if off.Spec.Provider != o.ProviderID {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.AuctionNamespace, Name: off.Spec.Quote}}}
		})).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, n client.Object) []reconcile.Request {
			if n.GetLabels()[sharingv1alpha1.LabelProvider] != string(o.ProviderID) || n.GetLabels()[LabelQuote] == "" {
				return nil
			}
			ns, name, ok := splitOrigin(n.GetAnnotations()[AnnotationQuote])
			if !ok {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
		})).
		WithOptions(controller.Options{MaxConcurrentReconciles: o.MaxConcurrentReconciles}).
		Named("offernodes-" + string(o.ProviderID)).
		Complete(r)
}

// Reconcile observes one auction, plans its nodes with PlanOfferNodes and
// makes them so. While the nodes exist it looks again every quarter of the
// lease, which is also how soon a Release or an expiry in the provider is
// seen.
func (r *OfferNodeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	opts := r.Nodes.Options
	now := opts.Clock.Now()
	w, err := r.observe(ctx, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, err
	}
	var list corev1.NodeList
	if err := r.Nodes.Client.List(ctx, &list, client.MatchingLabels{
		sharingv1alpha1.LabelVirtualNode: "true",
		sharingv1alpha1.LabelProvider:    string(opts.ProviderID),
		LabelQuote:                       quoteHash(quoteKey(req.Namespace, req.Name)),
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list virtual nodes of auction %s: %w", req, err)
	}
	existing := list.Items
	plan := PlanOfferNodes(w, existing, now, opts)

	byName := map[string]*corev1.Node{}
	for i := range existing {
		byName[existing[i].Name] = &existing[i]
	}
	var errs []error
	for i := range plan.Nodes {
		if err := r.Nodes.ensureNode(ctx, &plan.Nodes[i], byName[plan.Nodes[i].Name], now); err != nil {
			errs = append(errs, err)
		}
	}
	draining := false
	for _, name := range plan.Drain {
		gone, err := r.Nodes.drain(ctx, byName[name], plan.Reason)
		if err != nil {
			errs = append(errs, err)
		}
		draining = draining || !gone
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}

	next := opts.LeaseDuration / 4
	if draining {
		next = min(next, opts.DrainPoll)
	}
	if !plan.RecheckAt.IsZero() {
		next = min(next, max(plan.RecheckAt.Sub(now), 0)+time.Millisecond)
	}
	waiting := w.Quote != nil && w.Offer != nil && !w.Released && (w.Ack == nil || w.Ack.Status.Decision == "")
	switch {
	case waiting:
		// The provider's answer arrives in its cluster, which is not
		// watched.
		next = min(next, time.Second)
	case len(plan.Nodes) == 0 && !draining:
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: next}, nil
}

// observe reads what PlanOfferNodes decides on.
func (r *OfferNodeReconciler) observe(ctx context.Context, key types.NamespacedName) (Won, error) {
	var w Won
	opts := r.Nodes.Options
	q := &sharingv1alpha1.Quote{}
	if err := r.Nodes.Client.Get(ctx, key, q); err != nil {
		if apierrors.IsNotFound(err) {
			return w, nil
		}
		return w, fmt.Errorf("failed to get auction %s: %w", key, err)
	}
	w.Quote = q
	ns, name, ok := splitOrigin(q.Status.Offer)
	if !ok {
		return w, nil
	}
	peer, err := r.Nodes.peerOf(ctx, ns)
	if err != nil {
		return w, err
	}
	if peer == nil {
		// No Peer writes there: the offer is where the provider wrote it
		// at a broker, which ran this auction.
		return r.observeBrokered(ctx, w)
	}
	off := &sharingv1alpha1.Offer{}
	if err := r.Nodes.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, off); err != nil {
		if apierrors.IsNotFound(err) {
			return w, nil
		}
		return w, fmt.Errorf("failed to get offer %s/%s: %w", ns, name, err)
	}
	if off.Spec.Provider != opts.ProviderID {
		return w, nil
	}
	if peer.Spec.ClusterID != opts.ProviderID {
		// Only the provider's own service account writes into its Peer's
		// namespace: an offer elsewhere that names it is not its.
		return w, nil
	}
	w.Offer, w.Peer = off, peer

	ack := &sharingv1alpha1.Acknowledgement{}
	switch err := r.ProviderReader.Get(ctx, client.ObjectKey{Namespace: opts.ProviderNamespace, Name: off.Name}, ack); {
	case err == nil:
		w.Ack = ack
	case !apierrors.IsNotFound(err):
		return w, fmt.Errorf("failed to get acknowledgement %s/%s in provider %q: %w", opts.ProviderNamespace, off.Name, opts.ProviderID, err)
	}
	var rels sharingv1alpha1.ReleaseList
	if err := r.ProviderReader.List(ctx, &rels, client.InNamespace(opts.ProviderNamespace)); err != nil {
		return w, fmt.Errorf("failed to list releases in %s of provider %q: %w", opts.ProviderNamespace, opts.ProviderID, err)
	}
	for _, rel := range rels.Items {
		if rel.Spec.Source.Kind == sharingv1alpha1.SourceOffer && rel.Spec.Source.Name == off.Name {
			w.Released = true
		}
	}
	return w, nil
}

// observeBrokered reads what Brokered completes w with: the offer the
// broker handed over (Options.BrokerOffer) and this consumer's Peers.
func (r *OfferNodeReconciler) observeBrokered(ctx context.Context, w Won) (Won, error) {
	opts := r.Nodes.Options
	q := w.Quote
	if opts.BrokerOffer == nil || q.Status.Provider != opts.ProviderID || !meta.IsStatusConditionTrue(q.Status.Conditions, sharingv1alpha1.QuoteAnswered) {
		return w, nil
	}
	off, err := opts.BrokerOffer(ctx, q.Name)
	if err != nil || off == nil {
		return w, err
	}
	var peers sharingv1alpha1.PeerList
	if err := r.Nodes.Client.List(ctx, &peers, client.InNamespace(opts.AuctionNamespace)); err != nil {
		return w, fmt.Errorf("failed to list peers: %w", err)
	}
	return Brokered(w, off, peers.Items, opts.ProviderID), nil
}
