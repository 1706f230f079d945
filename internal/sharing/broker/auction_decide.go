package broker

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// forwardedName names the copy of consumer's Quote q that the broker
// sends to providers: unique per consumer (cluster IDs are DNS labels, so
// "<consumer>." prefixes no other consumer's names) and per auction (q's
// UID), so that an application's next auction, whose Quote has the same
// name, is answered afresh. Offers and Reservations are named after it.
func forwardedName(consumer sharingv1alpha1.ClusterID, q *sharingv1alpha1.Quote) string {
	base := q.Name
	if !strings.HasPrefix(base, string(consumer)+".") {
		base = string(consumer) + "." + base
	}
	if len(base) > 200 {
		base = strings.Trim(base[:200], ".-")
	}
	uid := strings.ReplaceAll(string(q.UID), "-", "")
	if len(uid) > 8 {
		uid = uid[:8]
	}
	return strings.ToLower(base + "." + uid)
}

// forwarded is consumer's Quote q as sent to providers: from the broker
// (each provider's Peer for the broker is the consumer it answers), on
// behalf of the consumer, with the same components and deadline.
func forwarded(self sharingv1alpha1.ClusterID, q *sharingv1alpha1.Quote) sharingv1alpha1.QuoteSpec {
	spec := *q.Spec.DeepCopy()
	spec.Consumer = self
	return spec
}

// verdict is what the broker decided for one bid: Selected or not, why.
type verdict struct {
	Offer   *sharingv1alpha1.Offer
	Confirm bool
	Cond    metav1.Condition
}

// outcome is an auction's decision: the winner (nil when none) and a
// verdict per bid.
type outcome struct {
	Winner   *sharingv1alpha1.Offer
	Price    *sharingv1alpha1.Money
	Verdicts []verdict
}

// decide picks the winner among bids. A decision already recorded on the
// Offers (their Selected condition, written before any acknowledgement)
// stands, so a broker that restarts after it acknowledged some bids never
// picks another; a bid that has no recorded verdict then arrived too late.
// Otherwise sharing.SelectOffer picks: the cheapest that fits, ties by
// latency.
func decide(q *sharingv1alpha1.Quote, bids []sharing.Bid, now time.Time) outcome {
	if out, ok := recorded(q, bids); ok {
		return out
	}
	sel, err := sharing.SelectOffer(q, bids, now)
	out := outcome{Winner: sel.Winner}
	if err == nil {
		out.Price = &sharingv1alpha1.Money{Amount: resource.MustParse(sel.PricePerHour.FloatString(6)), Currency: sel.Currency, Period: sharingv1alpha1.PeriodHour}
	}
	why := map[string]sharing.Rejection{}
	for _, rj := range sel.Rejected {
		why[rj.Offer] = rj
	}
	for _, b := range bids {
		v := verdict{Offer: b.Offer, Cond: metav1.Condition{Type: sharingv1alpha1.OfferSelected}}
		if sel.Winner != nil && b.Offer.Name == sel.Winner.Name && b.Offer.Namespace == sel.Winner.Namespace {
			v.Confirm = true
			v.Cond.Status, v.Cond.Reason = metav1.ConditionTrue, sharingv1alpha1.OfferReasonCheapest
			v.Cond.Message = fmt.Sprintf("cheapest fitting offer: %s %s per hour, on behalf of %s", sel.PricePerHour.FloatString(4), sel.Currency, q.Spec.Consumer)
		} else {
			rj := why[b.Offer.Name]
			v.Cond.Status, v.Cond.Reason, v.Cond.Message = metav1.ConditionFalse, rj.Reason, rj.Message
		}
		out.Verdicts = append(out.Verdicts, v)
	}
	return out
}

// recorded reads a decision on q from the bids' Selected conditions;
// false when none has one.
func recorded(q *sharingv1alpha1.Quote, bids []sharing.Bid) (outcome, bool) {
	var out outcome
	seen := false
	for _, b := range bids {
		c := meta.FindStatusCondition(b.Offer.Status.Conditions, sharingv1alpha1.OfferSelected)
		v := verdict{Offer: b.Offer}
		switch {
		case c == nil:
			v.Cond = metav1.Condition{Type: sharingv1alpha1.OfferSelected, Status: metav1.ConditionFalse, Reason: sharingv1alpha1.OfferReasonLate,
				Message: "arrived after the broker had picked"}
		case c.Status == metav1.ConditionTrue:
			seen, v.Confirm, v.Cond = true, true, *c
			out.Winner = b.Offer
			// Its price as SelectOffer counted it when it arrived.
			if sel, err := sharing.SelectOffer(q, []sharing.Bid{b}, b.ReceivedAt); err == nil {
				out.Price = &sharingv1alpha1.Money{Amount: resource.MustParse(sel.PricePerHour.FloatString(6)), Currency: sel.Currency, Period: sharingv1alpha1.PeriodHour}
			}
		default:
			seen, v.Cond = true, *c
		}
		out.Verdicts = append(out.Verdicts, v)
	}
	return out, seen
}
