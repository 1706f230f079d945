package virtualnode

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// Labels and annotations of the virtual nodes made from a won auction.
const (
	// LabelAuction marks the Quotes in the agent's namespace that are the
	// consumer's own auctions (the agent's LabelAuction).
	LabelAuction = "sharing.meridian.dev/auction"
	// LabelQuote is on every virtual node made from a won auction, with a
	// hash of its Quote's namespace and name (which may be longer than a
	// label value); AnnotationQuote holds them in full.
	LabelQuote      = "sharing.meridian.dev/quote"
	AnnotationQuote = "sharing.meridian.dev/quote"
	// ShapeOffer is the shape label of virtual nodes made from an offer.
	ShapeOffer = "offer"

	// Reasons a won auction's nodes are drained for.
	ReasonOfferReleased    = "OfferReleased"
	ReasonOfferExpired     = "OfferExpired"
	ReasonOfferNotReserved = "OfferNotReserved"
)

// Won is what the consumer observed of one of its auctions: its Quote, the
// winning Offer the provider wrote here, the provider's answer to the
// confirming Acknowledgement, and whether a Release of the offer was
// written into the provider.
type Won struct {
	// Quote is the auction's record in the agent's namespace; nil when gone.
	Quote *sharingv1alpha1.Quote
	// Offer is the offer the quote's status names; nil when there is none
	// (yet) or it is gone.
	Offer *sharingv1alpha1.Offer
	// Peer is the Peer whose namespace holds the offer.
	Peer *sharingv1alpha1.Peer
	// Ack is the provider's copy of this consumer's Acknowledgement of the
	// offer, with the provider's decision; nil while there is none.
	Ack *sharingv1alpha1.Acknowledgement
	// Released: a Release of the offer was written into the provider.
	Released bool
}

// PlanOfferNodes decides the virtual nodes of a won auction: while the
// offer is selected, confirmed by the provider, neither released nor
// expired, one node per replica of every component of the quote, each
// with that replica's requests and one pod slot, so that what the
// consumer's scheduler binds to it is exactly what the provider reserved
// on one of its nodes (planOffer packs every replica whole onto one
// node); none otherwise. The offer's expiresAt is the reservation's once
// the provider confirmed it. existing are the nodes made from it before.
func PlanOfferNodes(w Won, existing []corev1.Node, now time.Time, opts Options) NodePlan {
	var plan NodePlan
	o := w.Offer
	switch {
	case w.Quote == nil || !w.Quote.DeletionTimestamp.IsZero():
		plan.Reason, plan.Message = ReasonOfferNotReserved, "the auction is gone"
	case o == nil || o.Spec.Provider != opts.ProviderID:
		plan.Reason, plan.Message = ReasonOfferNotReserved, "the auction has no offer of this provider"
	case !meta.IsStatusConditionTrue(o.Status.Conditions, sharingv1alpha1.OfferSelected):
		plan.Reason, plan.Message = ReasonOfferNotReserved, "the offer was not selected"
	case w.Released:
		plan.Reason, plan.Message = ReasonOfferReleased, "the offer was released"
	case w.Ack == nil || w.Ack.Status.Decision == "":
		plan.Reason, plan.Message = ReasonOfferNotReserved, "the provider has not answered the acknowledgement yet"
	case w.Ack.Status.Decision != sharingv1alpha1.AckConfirmed:
		plan.Reason, plan.Message = ReasonOfferNotReserved, fmt.Sprintf("the provider refused the acknowledgement: %s", w.Ack.Status.Reason)
	case !now.Before(o.Spec.ExpiresAt.Time):
		plan.Reason, plan.Message = ReasonOfferExpired, fmt.Sprintf("the offer's reservation expired at %s", o.Spec.ExpiresAt.UTC().Format(time.RFC3339))
	default:
		plan.RecheckAt = o.Spec.ExpiresAt.Time
		plan.Ready, plan.Reason, plan.Message = peerReady(w.Peer)
		plan.Nodes = offerNodes(w, plan.Ready, plan.Reason, plan.Message, opts)
	}
	want := map[string]bool{}
	for _, n := range plan.Nodes {
		want[n.Name] = true
	}
	for _, n := range existing {
		if !want[n.Name] {
			plan.Drain = append(plan.Drain, n.Name)
		}
	}
	sort.Strings(plan.Drain)
	return plan
}

// Brokered completes w, whose Quote a broker ran, for PlanOfferNodes: its
// offer is handed, the copy of the winning offer the broker handed over
// into this consumer's namespace at the broker; its Peer is this
// consumer's own Peer of provider that lends to it directly (the pods run
// there through it); and the provider's answer is Confirmed once the Quote
// is Answered True for provider, because the broker answers only after the
// winner confirmed and this consumer may not read the acknowledgement the
// broker wrote into the provider. A Release of a brokered offer is written
// at the broker, which forwards it and then moves the handed-over copy's
// expiresAt to the release time, so its nodes go by the expiry rule, at
// once after a release or when the reservation expires. w is returned as it
// is (no nodes) when any of these is missing or names another provider.
func Brokered(w Won, handed *sharingv1alpha1.Offer, peers []sharingv1alpha1.Peer, provider sharingv1alpha1.ClusterID) Won {
	q := w.Quote
	if q == nil || handed == nil || q.Status.Provider != provider || handed.Spec.Provider != provider ||
		!meta.IsStatusConditionTrue(q.Status.Conditions, sharingv1alpha1.QuoteAnswered) {
		return w
	}
	for i := range peers {
		p := &peers[i]
		if p.Spec.ClusterID == provider && p.Spec.HostsVirtualNodes() {
			w.Offer, w.Peer = handed, p
			w.Ack = &sharingv1alpha1.Acknowledgement{Status: sharingv1alpha1.AcknowledgementStatus{Decision: sharingv1alpha1.AckConfirmed}}
			return w
		}
	}
	return w
}

// quoteKey is "<namespace>/<name>" of a quote, and quoteHash its label
// value.
func quoteKey(namespace, name string) string { return namespace + "/" + name }

func quoteHash(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])[:16]
}

// offerNodes are the nodes of a confirmed offer, at most
// opts.Slice.MaxNodes (100).
func offerNodes(w Won, ready bool, reason, message string, opts Options) []corev1.Node {
	key := quoteKey(w.Quote.Namespace, w.Quote.Name)
	hash := quoteHash(key)
	labels := map[string]string{
		sharingv1alpha1.LabelVirtualNode: "true",
		sharingv1alpha1.LabelProvider:    string(opts.ProviderID),
		sharingv1alpha1.LabelShape:       ShapeOffer,
		LabelQuote:                       hash,
		"type":                           "virtual-node",
	}
	if w.Peer != nil && w.Peer.Spec.Region != "" {
		labels[corev1.LabelTopologyRegion] = w.Peer.Spec.Region
	}
	if w.Offer.Spec.Whole != nil && w.Offer.Spec.Whole.Price != nil {
		labels[sharingv1alpha1.LabelCurrency] = w.Offer.Spec.Whole.Price.Currency
	}
	taint := corev1.Taint{Key: sharingv1alpha1.TaintVirtualNode, Value: string(opts.ProviderID), Effect: corev1.TaintEffectNoSchedule}
	maxNodes := opts.Slice.MaxNodes
	if maxNodes <= 0 {
		maxNodes = 100
	}
	var nodes []corev1.Node
	i := 0
	for _, c := range w.Quote.Spec.Components {
		for range max(c.Replicas, 1) {
			if len(nodes) >= maxNodes {
				return nodes
			}
			alloc := corev1.ResourceList{}
			for r, q := range c.Requests {
				alloc[r] = q.DeepCopy()
			}
			// One replica per node: its pod slot is part of what the
			// provider reserved.
			alloc[corev1.ResourcePods] = resource.MustParse("1")
			l := make(map[string]string, len(labels)+len(c.NodeSelector))
			for k, v := range c.NodeSelector {
				l[k] = v
			}
			for k, v := range labels {
				l[k] = v
			}
			vn := sharing.VirtualNode{
				Name:        fmt.Sprintf("vn-%s-offer-%s-%d", opts.ProviderID, hash[:10], i),
				Provider:    opts.ProviderID,
				Shape:       ShapeOffer,
				Allocatable: alloc,
				Labels:      l,
				Taints:      []corev1.Taint{taint},
			}
			n := nodeOf(vn, "", ready, reason, message, opts.Kubelet)
			n.Annotations = map[string]string{AnnotationQuote: key}
			nodes = append(nodes, n)
			i++
		}
	}
	return nodes
}
