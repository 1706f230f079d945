package sharing

import (
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// Errors of the ledger and the auction.
var (
	// ErrNotAllowed: the outgoing policy does not let this consumer be
	// advertised to.
	ErrNotAllowed = errors.New("consumer not allowed by the outgoing policy")
	// ErrNoHold: nothing is held for that consumer and source.
	ErrNoHold = errors.New("no hold for that consumer and source")
	// ErrHoldExpired: the hold expired before it was accepted.
	ErrHoldExpired = errors.New("hold expired")
	// ErrOverPromise: a hold would give a node's capacity to two consumers.
	ErrOverPromise = errors.New("capacity already promised to another consumer")
	// ErrNoOffer: no offer fits the quote.
	ErrNoOffer = errors.New("no offer fits the quote")
)

// HoldKey identifies a hold: one consumer and the message it was promised
// in.
type HoldKey struct {
	Consumer sharingv1alpha1.ClusterID
	Source   sharingv1alpha1.SourceReference
}

func (k HoldKey) String() string {
	return fmt.Sprintf("%s/%s/%s", k.Consumer, k.Source.Kind, k.Source.Name)
}

// Hold is capacity offered or reserved for one consumer: the in-memory
// form of a Reservation's spec.
type Hold struct {
	HoldKey
	State     sharingv1alpha1.ReservationState
	ExpiresAt time.Time
	Slices    []sharingv1alpha1.NodeSlice
}

// Reservation returns the spec of the Reservation that stores h.
func (h Hold) Reservation() sharingv1alpha1.ReservationSpec {
	return sharingv1alpha1.ReservationSpec{
		Consumer: h.Consumer, Source: h.Source, State: h.State,
		Slices: h.Slices, ExpiresAt: metav1.NewTime(h.ExpiresAt),
	}
}

// HoldFromReservation is the hold a stored Reservation describes.
func HoldFromReservation(spec sharingv1alpha1.ReservationSpec) Hold {
	return Hold{
		HoldKey:   HoldKey{Consumer: spec.Consumer, Source: spec.Source},
		State:     spec.State,
		ExpiresAt: spec.ExpiresAt.Time,
		Slices:    spec.Slices,
	}
}

// Ledger records, per provider node, the slices of capacity held for each
// consumer. It is a value the agent rebuilds from its Reservations at start
// (NewLedger), changes with Advertise, Accept, Release and Expire, and
// writes back as Reservations; it does no I/O itself.
type Ledger struct {
	holds map[HoldKey]Hold
}

// NewLedger returns a ledger holding holds.
func NewLedger(holds ...Hold) *Ledger {
	l := &Ledger{holds: map[HoldKey]Hold{}}
	for _, h := range holds {
		l.holds[h.HoldKey] = h
	}
	return l
}

// Holds returns every hold, sorted by key.
func (l *Ledger) Holds() []Hold {
	out := make([]Hold, 0, len(l.holds))
	for _, h := range l.holds {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Get returns the hold of key.
func (l *Ledger) Get(key HoldKey) (Hold, bool) {
	h, ok := l.holds[key]
	return h, ok
}

// heldOn sums, per node, the slices of every live hold except those for
// which skip is true, and per consumer, so the twins a consumer runs can
// be weighed against what it holds.
func (l *Ledger) heldOn(now time.Time, skip func(HoldKey) bool) map[string]map[sharingv1alpha1.ClusterID]corev1.ResourceList {
	out := map[string]map[sharingv1alpha1.ClusterID]corev1.ResourceList{}
	for k, h := range l.holds {
		if skip(k) || !now.Before(h.ExpiresAt) {
			continue
		}
		for _, s := range h.Slices {
			if out[s.Node] == nil {
				out[s.Node] = map[sharingv1alpha1.ClusterID]corev1.ResourceList{}
			}
			if out[s.Node][k.Consumer] == nil {
				out[s.Node][k.Consumer] = corev1.ResourceList{}
			}
			add(out[s.Node][k.Consumer], s.Resources)
		}
	}
	return out
}

// Outgoing is the outgoing policy for one destination: whether it may be
// advertised to, what part of each node's spare capacity it may get, and
// its prices.
type Outgoing struct {
	// Allowed lists the consumers that may be advertised to; empty allows
	// every consumer.
	Allowed []sharingv1alpha1.ClusterID
	// SharePercent of each node's spare capacity the consumer may get.
	SharePercent int32
	// Prices the consumer is charged.
	Prices []sharingv1alpha1.Price
	// Shapes say how slices are rounded into shapes.
	Shapes ShapeOptions
}

// OutgoingFromPeer is the outgoing policy a Peer's spec.outgoing states,
// with allowed the consumers the cluster's policy lets be advertised to.
func OutgoingFromPeer(peer *sharingv1alpha1.Peer, allowed []sharingv1alpha1.ClusterID, shapes ShapeOptions) Outgoing {
	o := Outgoing{Allowed: allowed, SharePercent: 50, Shapes: shapes}
	if peer.Spec.Outgoing != nil {
		o.SharePercent = peer.Spec.Outgoing.SharePercent
		o.Prices = peer.Spec.Outgoing.Prices
	}
	return o
}

// Plan is what to advertise to one consumer and the hold that backs it.
type Plan struct {
	// Availability is the advertisement's spec.availability.
	Availability []sharingv1alpha1.NodeShape
	// Prices is the advertisement's spec.prices.
	Prices []sharingv1alpha1.Price
	// Hold is the capacity to hold for the consumer; Advertise has put it
	// in the ledger already.
	Hold Hold
}

// Advertise plans what to advertise to consumer in the advertisement
// named source, valid until expiresAt, and records it in the ledger as an
// Offered hold (or keeps it Reserved when the consumer already accepted
// that advertisement: a renewal). Each node gives the consumer at most
// SharePercent of its spare capacity and never any capacity another
// consumer holds or runs twins in, nor what the same consumer holds for
// other messages; the slices are rounded down into shapes. The same
// capacity is therefore never advertised to two consumers.
func (l *Ledger) Advertise(nodes []NodeSpare, consumer sharingv1alpha1.ClusterID, source string, policy Outgoing, now, expiresAt time.Time) (Plan, error) {
	if len(policy.Allowed) > 0 && !containsID(policy.Allowed, consumer) {
		return Plan{}, fmt.Errorf("failed to advertise to %q: %w", consumer, ErrNotAllowed)
	}
	if policy.SharePercent < 0 || policy.SharePercent > 100 {
		return Plan{}, fmt.Errorf("outgoing policy for %q: sharePercent %d is not from 0 to 100", consumer, policy.SharePercent)
	}
	key := HoldKey{Consumer: consumer, Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceAdvertisement, Name: source}}
	held := l.heldOn(now, func(k HoldKey) bool { return k == key })

	var units []unit
	for _, n := range nodes {
		// Other consumers take what they hold or what their twins use,
		// whichever is more; this consumer's twins run inside the very
		// hold being renewed, so only its other holds count.
		avail := n.Free.DeepCopy()
		for _, c := range consumersOn(held[n.Name], n.UsedBy) {
			if c == consumer {
				sub(avail, held[n.Name][c])
			} else {
				sub(avail, maxList(held[n.Name][c], n.UsedBy[c]))
			}
		}
		slice := minList(avail, scale(n.Free, policy.SharePercent))
		rounded, ok := policy.Shapes.round(slice)
		if !ok {
			continue
		}
		units = append(units, unit{node: n.Name, shape: ShapeName(rounded, n.Labels), resources: rounded, labels: n.Labels})
	}

	h := Hold{HoldKey: key, State: sharingv1alpha1.ReservationOffered, ExpiresAt: expiresAt}
	if old, ok := l.holds[key]; ok && old.State == sharingv1alpha1.ReservationReserved && now.Before(old.ExpiresAt) {
		h.State = sharingv1alpha1.ReservationReserved
	}
	for _, u := range units {
		h.Slices = append(h.Slices, sharingv1alpha1.NodeSlice{Node: u.node, Shape: u.shape, Resources: u.resources})
	}
	if len(h.Slices) == 0 {
		delete(l.holds, key)
	} else {
		l.holds[key] = h
	}
	return Plan{Availability: group(units), Prices: policy.Prices, Hold: h}, nil
}

// Offer holds slices for an auction offer to consumer, until expiresAt.
// It refuses (ErrOverPromise) when a slice's node does not have the slice
// free of what other holds and other consumers' twins take.
func (l *Ledger) Offer(nodes []NodeSpare, consumer sharingv1alpha1.ClusterID, offer string, slices []sharingv1alpha1.NodeSlice, now, expiresAt time.Time) (Hold, error) {
	key := HoldKey{Consumer: consumer, Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: offer}}
	held := l.heldOn(now, func(k HoldKey) bool { return k == key })
	free := map[string]NodeSpare{}
	for _, n := range nodes {
		free[n.Name] = n
	}
	for _, s := range slices {
		n, ok := free[s.Node]
		if !ok {
			return Hold{}, fmt.Errorf("failed to hold offer %q: node %q: %w", offer, s.Node, ErrOverPromise)
		}
		avail := n.Free.DeepCopy()
		for _, c := range consumersOn(held[n.Name], n.UsedBy) {
			sub(avail, maxList(held[n.Name][c], n.UsedBy[c]))
		}
		if !Fits(s.Resources, avail) {
			return Hold{}, fmt.Errorf("failed to hold offer %q: node %q cannot spare %v: %w", offer, s.Node, s.Resources, ErrOverPromise)
		}
	}
	h := Hold{HoldKey: key, State: sharingv1alpha1.ReservationOffered, ExpiresAt: expiresAt, Slices: slices}
	l.holds[key] = h
	return h, nil
}

// Accept turns the Offered hold of key into a Reservation, when it has not
// expired at now. Accepting a hold already Reserved changes nothing.
func (l *Ledger) Accept(key HoldKey, now time.Time) (Hold, error) {
	h, ok := l.holds[key]
	if !ok {
		return Hold{}, fmt.Errorf("failed to accept %s: %w", key, ErrNoHold)
	}
	if !now.Before(h.ExpiresAt) {
		return Hold{}, fmt.Errorf("failed to accept %s: expired at %s: %w", key, h.ExpiresAt.Format(time.RFC3339), ErrHoldExpired)
	}
	h.State = sharingv1alpha1.ReservationReserved
	l.holds[key] = h
	return h, nil
}

// Release frees the hold of key and returns it.
func (l *Ledger) Release(key HoldKey) (Hold, error) {
	h, ok := l.holds[key]
	if !ok {
		return Hold{}, fmt.Errorf("failed to release %s: %w", key, ErrNoHold)
	}
	delete(l.holds, key)
	return h, nil
}

// Expire frees every hold whose expiry is not after now and returns them,
// sorted by key.
func (l *Ledger) Expire(now time.Time) []Hold {
	var out []Hold
	for k, h := range l.holds {
		if !now.Before(h.ExpiresAt) {
			out = append(out, h)
			delete(l.holds, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Overcommitted returns the nodes whose live holds and the twins running
// on them exceed what they can spare: the provider's own pods grew into
// held capacity. The agent reports them in the Reservations' Held
// condition.
func (l *Ledger) Overcommitted(nodes []NodeSpare, now time.Time) []string {
	held := l.heldOn(now, func(HoldKey) bool { return false })
	var out []string
	for _, n := range nodes {
		total := corev1.ResourceList{}
		for _, c := range consumersOn(held[n.Name], n.UsedBy) {
			add(total, maxList(held[n.Name][c], n.UsedBy[c]))
		}
		if !Fits(total, n.Free) {
			out = append(out, n.Name)
		}
	}
	return out
}

func containsID(ids []sharingv1alpha1.ClusterID, id sharingv1alpha1.ClusterID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// consumersOn lists, sorted, the consumers that hold capacity on a node or
// run twins there.
func consumersOn(held, used map[sharingv1alpha1.ClusterID]corev1.ResourceList) []sharingv1alpha1.ClusterID {
	seen := map[sharingv1alpha1.ClusterID]bool{}
	var out []sharingv1alpha1.ClusterID
	for _, m := range []map[sharingv1alpha1.ClusterID]corev1.ResourceList{held, used} {
		for c := range m {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
