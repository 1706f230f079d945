package sharing

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/money"
)

// Bid is an Offer as the consumer received it.
type Bid struct {
	Offer *sharingv1alpha1.Offer
	// ReceivedAt is when the consumer saw the offer; one received after
	// the quote's deadline is late.
	ReceivedAt time.Time
	// Latency to the provider; zero means unknown, which loses ties.
	Latency time.Duration
}

// Rejection is an offer the auction did not pick and why, as an Offer's
// Selected condition shows it.
type Rejection struct {
	Offer   string
	Reason  string
	Message string
}

// Selection is the result of an auction.
type Selection struct {
	// Winner is the picked offer; nil with ErrNoOffer.
	Winner *sharingv1alpha1.Offer
	// PricePerHour is the winner's price for the whole quote, per hour.
	PricePerHour money.Money
	// Rejected lists every other offer with its reason.
	Rejected []Rejection
}

// SelectOffer picks the cheapest offer that fits the quote at now: it is
// for the quote's appID, arrived by the deadline, has not expired, covers
// every component with interest greater than zero (as a whole, or item by
// item) and is in the quote's currency when the quote names one. Prices
// compare per hour; ties go to the lower known latency, then the
// provider's name. Offers in different currencies are never compared: when
// the quote names no currency and the fitting offers are in more than one,
// every one is rejected with a message that names the quote's
// spec.currency. With no fitting offer it returns ErrNoOffer and the
// rejections.
func SelectOffer(quote *sharingv1alpha1.Quote, bids []Bid, now time.Time) (Selection, error) {
	type fit struct {
		bid   Bid
		price money.Money
	}
	var fits []fit
	var sel Selection
	for _, b := range bids {
		o := b.Offer
		reject := func(reason, format string, args ...any) {
			sel.Rejected = append(sel.Rejected, Rejection{Offer: o.Name, Reason: reason, Message: fmt.Sprintf(format, args...)})
		}
		if errs := Validate(o); len(errs) > 0 {
			reject(sharingv1alpha1.OfferReasonDoesNotFit, "offer is invalid: %v", errs.ToAggregate())
			continue
		}
		switch {
		case o.Spec.AppID != quote.Spec.AppID:
			reject(sharingv1alpha1.OfferReasonDoesNotFit, "offer is for app %q, the quote for %q", o.Spec.AppID, quote.Spec.AppID)
			continue
		case b.ReceivedAt.After(quote.Spec.Deadline.Time):
			reject(sharingv1alpha1.OfferReasonLate, "received at %s, after the deadline %s", b.ReceivedAt.Format(time.RFC3339), quote.Spec.Deadline.Format(time.RFC3339))
			continue
		case !now.Before(o.Spec.ExpiresAt.Time):
			reject(sharingv1alpha1.OfferReasonExpired, "expired at %s", o.Spec.ExpiresAt.Format(time.RFC3339))
			continue
		}
		price, why := offerPrice(quote, o)
		if why != "" {
			reject(sharingv1alpha1.OfferReasonDoesNotFit, "%s", why)
			continue
		}
		fits = append(fits, fit{bid: b, price: price})
	}
	if currencies := currenciesOf(fits, func(f fit) money.Money { return f.price }); len(currencies) > 1 {
		for _, f := range fits {
			sel.Rejected = append(sel.Rejected, Rejection{Offer: f.bid.Offer.Name, Reason: sharingv1alpha1.OfferReasonDoesNotFit,
				Message: fmt.Sprintf("priced in %s, and the fitting offers are in %s, which are not compared: spec.currency of quote %q must name one of them",
					f.price.Currency(), strings.Join(currencies, ", "), quote.Name)})
		}
		fits = nil
	}
	if len(fits) == 0 {
		return sel, fmt.Errorf("failed to select an offer for quote %q among %d: %w", quote.Name, len(bids), ErrNoOffer)
	}
	sort.SliceStable(fits, func(i, j int) bool {
		// One currency (above), so Cmp cannot fail.
		if c, _ := fits[i].price.Cmp(fits[j].price); c != 0 {
			return c < 0
		}
		li, lj := fits[i].bid.Latency, fits[j].bid.Latency
		if (li == 0) != (lj == 0) {
			return lj == 0
		}
		if li != lj {
			return li < lj
		}
		return fits[i].bid.Offer.Spec.Provider < fits[j].bid.Offer.Spec.Provider
	})
	sel.Winner, sel.PricePerHour = fits[0].bid.Offer, fits[0].price
	for _, f := range fits[1:] {
		sel.Rejected = append(sel.Rejected, Rejection{Offer: f.bid.Offer.Name, Reason: sharingv1alpha1.OfferReasonOutbid,
			Message: fmt.Sprintf("%s per hour against %s from %s", f.price, sel.PricePerHour, sel.Winner.Spec.Provider)})
	}
	sort.Slice(sel.Rejected, func(i, j int) bool { return sel.Rejected[i].Offer < sel.Rejected[j].Offer })
	return sel, nil
}

// currenciesOf are the currencies of the items' prices, sorted.
func currenciesOf[T any](items []T, price func(T) money.Money) []string {
	seen := map[string]bool{}
	for _, it := range items {
		seen[price(it).Currency()] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// offerPrice is an offer's price per hour for every component of the
// quote, or why it does not cover them.
func offerPrice(quote *sharingv1alpha1.Quote, o *sharingv1alpha1.Offer) (money.Money, string) {
	currencyOK := func(c string) bool { return quote.Spec.Currency == "" || c == quote.Spec.Currency }
	if w := o.Spec.Whole; w != nil && w.Interest > 0 && w.Price != nil && currencyOK(w.Price.Currency) {
		if m, ok := PerHour(*w.Price); ok {
			return m, ""
		}
	}
	items := map[string]sharingv1alpha1.OfferTerms{}
	for _, it := range o.Spec.Items {
		items[it.Component] = it.OfferTerms
	}
	var total money.Money
	for _, c := range quote.Spec.Components {
		t, ok := items[c.Name]
		if !ok || t.Interest == 0 || t.Price == nil {
			return money.Money{}, fmt.Sprintf("no interest in component %q", c.Name)
		}
		want := quote.Spec.Currency
		if want == "" {
			want = total.Currency()
		}
		if want != "" && t.Price.Currency != want {
			return money.Money{}, fmt.Sprintf("component %q is priced in %s, want %s", c.Name, t.Price.Currency, want)
		}
		m, ok := PerHour(*t.Price)
		if !ok {
			return money.Money{}, fmt.Sprintf("component %q has price period %q", c.Name, t.Price.Period)
		}
		// The currency is checked above, so Add cannot fail.
		total, _ = total.Add(m)
	}
	return total, ""
}
