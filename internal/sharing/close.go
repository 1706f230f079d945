package sharing

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/money"
)

// Verdict is an auction's decision on one bid, as its Offer's Selected
// condition records it: the winner is confirmed to its provider, every
// other bid declined.
type Verdict struct {
	Offer *sharingv1alpha1.Offer
	// Selected is true for the winner only.
	Selected bool
	Reason   string
	Message  string
}

// Condition is v as its Offer's Selected condition.
func (v Verdict) Condition() metav1.Condition {
	status := metav1.ConditionFalse
	if v.Selected {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{Type: sharingv1alpha1.OfferSelected, Status: status, Reason: v.Reason, Message: v.Message}
}

// Record writes v into its Offer's Selected condition (and Ready, which
// follows it) and reports whether
// that changed anything: false when the Offer already shows v's status,
// which is the case for every verdict of a recorded decision.
func (v Verdict) Record() bool {
	want := v.Condition()
	if c := meta.FindStatusCondition(v.Offer.Status.Conditions, sharingv1alpha1.OfferSelected); c != nil && c.Status == want.Status {
		return false
	}
	meta.SetStatusCondition(&v.Offer.Status.Conditions, want)
	SetReady(v.Offer)
	return true
}

// Close is how an auction closes: the winner, its price for the whole
// quote per hour, and a verdict for every bid in the order of the bids.
type Close struct {
	// Winner is the selected offer; nil when no bid fits.
	Winner *sharingv1alpha1.Offer
	// PricePerHour is the winner's price for the whole quote; the zero
	// Money when there is no winner or its price is unknown.
	PricePerHour money.Money
	Verdicts     []Verdict
	// Recorded is true when the decision was read back from the Offers'
	// Selected conditions rather than made now.
	Recorded bool
}

// Price is the winner's price per hour as Money; nil without one.
func (c Close) Price() *sharingv1alpha1.Money {
	if c.PricePerHour.IsZero() {
		return nil
	}
	return HourlyMoney(c.PricePerHour)
}

// PriceString is the winner's price per hour for messages, "0.3000 EUR",
// or "-" without one.
func (c Close) PriceString() string {
	if c.PricePerHour.IsZero() {
		return "-"
	}
	return c.PricePerHour.String()
}

// CloseAuction decides the auction of quote q among bids at now. It is the
// one rule by which a consumer's agent and the broker close an auction,
// and both record its verdicts on the Offers (Verdict.Record) before they
// acknowledge any bid, so that the decision survives them:
//
//   - A decision already recorded on the Offers (a Selected condition on
//     any bid) stands, whatever the bids and the clock say now: a closer
//     restarted after it acknowledged some bids must not confirm another
//     winner, or two providers would hold capacity for one quote. A bid
//     with no recorded verdict arrived after the pick and is declined as
//     late.
//   - Otherwise SelectOffer picks: the cheapest bid that fits, ties by
//     latency; every other bid is declined with SelectOffer's reason.
//
// A bid received before q was created is left out, with no verdict: it
// was made for an earlier auction of the same name (a consumer names every
// auction of an application alike), and its recorded verdict is that
// auction's, not q's.
func CloseAuction(q *sharingv1alpha1.Quote, bids []Bid, now time.Time) Close {
	bids = madeFor(q, bids)
	if c, ok := recordedClose(q, bids); ok {
		return c
	}
	sel, err := SelectOffer(q, bids, now)
	c := Close{Winner: sel.Winner, PricePerHour: sel.PricePerHour}
	if err != nil && !errors.Is(err, ErrNoOffer) {
		// SelectOffer fails only with ErrNoOffer; anything else would be
		// a bug, and no bid wins then.
		c.Winner, c.PricePerHour = nil, money.Money{}
	}
	why := map[string]Rejection{}
	for _, rj := range sel.Rejected {
		why[rj.Offer] = rj
	}
	for _, b := range bids {
		if c.Winner != nil && b.Offer.Namespace == c.Winner.Namespace && b.Offer.Name == c.Winner.Name {
			c.Verdicts = append(c.Verdicts, Verdict{Offer: b.Offer, Selected: true, Reason: sharingv1alpha1.OfferReasonCheapest,
				Message: fmt.Sprintf("cheapest fitting offer: %s per hour", c.PriceString())})
			continue
		}
		rj, ok := why[b.Offer.Name]
		if !ok {
			rj = Rejection{Reason: sharingv1alpha1.OfferReasonOutbid, Message: "not selected"}
		}
		c.Verdicts = append(c.Verdicts, Verdict{Offer: b.Offer, Reason: rj.Reason, Message: rj.Message})
	}
	// The winner's verdict comes first, and the closers record verdicts in
	// this order: a closer stopped after recording some of them has
	// recorded the winner, which a restarted one then confirms
	// (recordedClose), rather than a loser only, which would make it
	// decline the unrecorded winner as late.
	slices.SortStableFunc(c.Verdicts, func(a, b Verdict) int {
		switch {
		case a.Selected == b.Selected:
			return 0
		case a.Selected:
			return -1
		default:
			return 1
		}
	})
	return c
}

// madeFor drops the bids received before q was created.
func madeFor(q *sharingv1alpha1.Quote, bids []Bid) []Bid {
	var out []Bid
	for _, b := range bids {
		if !b.ReceivedAt.Before(q.CreationTimestamp.Time) {
			out = append(out, b)
		}
	}
	return out
}

// recordedClose reads a decision on q back from the bids' Selected
// conditions; false when no bid has one.
func recordedClose(q *sharingv1alpha1.Quote, bids []Bid) (Close, bool) {
	c := Close{Recorded: true}
	seen := false
	for _, b := range bids {
		cond := meta.FindStatusCondition(b.Offer.Status.Conditions, sharingv1alpha1.OfferSelected)
		if cond == nil {
			c.Verdicts = append(c.Verdicts, Verdict{Offer: b.Offer, Reason: sharingv1alpha1.OfferReasonLate,
				Message: "arrived after the auction had picked its winner"})
			continue
		}
		seen = true
		v := Verdict{Offer: b.Offer, Selected: cond.Status == metav1.ConditionTrue, Reason: cond.Reason, Message: cond.Message}
		if v.Selected && c.Winner == nil {
			c.Winner = b.Offer
			// Its price as SelectOffer counted it when it arrived.
			if sel, err := SelectOffer(q, []Bid{b}, b.ReceivedAt); err == nil {
				c.PricePerHour = sel.PricePerHour
			}
		} else if v.Selected {
			// Two recorded winners cannot come from one closer; keep the
			// first and decline the other rather than confirm both.
			v = Verdict{Offer: b.Offer, Reason: sharingv1alpha1.OfferReasonOutbid, Message: "another offer was recorded as selected first"}
		}
		c.Verdicts = append(c.Verdicts, v)
	}
	return c, seen
}
