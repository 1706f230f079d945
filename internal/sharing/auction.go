package sharing

import (
	"fmt"
	"math/big"
	"sort"
	"time"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
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
	PricePerHour *big.Rat
	Currency     string
	// Rejected lists every other offer with its reason.
	Rejected []Rejection
}

// SelectOffer picks the cheapest offer that fits the quote at now: it is
// for the quote's appID, arrived by the deadline, has not expired, covers
// every component with interest greater than zero (as a whole, or item by
// item) and is in the quote's currency when the quote names one. Prices
// compare per hour; ties go to the lower known latency, then the
// provider's name. With no fitting offer it returns ErrNoOffer and the
// rejections.
func SelectOffer(quote *sharingv1alpha1.Quote, bids []Bid, now time.Time) (Selection, error) {
	type fit struct {
		bid      Bid
		price    *big.Rat
		currency string
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
		price, currency, why := offerPrice(quote, o)
		if why != "" {
			reject(sharingv1alpha1.OfferReasonDoesNotFit, "%s", why)
			continue
		}
		fits = append(fits, fit{bid: b, price: price, currency: currency})
	}
	if len(fits) == 0 {
		return sel, fmt.Errorf("failed to select an offer for quote %q among %d: %w", quote.Name, len(bids), ErrNoOffer)
	}
	sort.SliceStable(fits, func(i, j int) bool {
		if c := fits[i].price.Cmp(fits[j].price); c != 0 {
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
	sel.Winner, sel.PricePerHour, sel.Currency = fits[0].bid.Offer, fits[0].price, fits[0].currency
	for _, f := range fits[1:] {
		sel.Rejected = append(sel.Rejected, Rejection{Offer: f.bid.Offer.Name, Reason: sharingv1alpha1.OfferReasonOutbid,
			Message: fmt.Sprintf("%s %s per hour against %s %s from %s", f.price.FloatString(4), f.currency, sel.PricePerHour.FloatString(4), sel.Currency, sel.Winner.Spec.Provider)})
	}
	sort.Slice(sel.Rejected, func(i, j int) bool { return sel.Rejected[i].Offer < sel.Rejected[j].Offer })
	return sel, nil
}

// offerPrice is an offer's price per hour for every component of the
// quote, or why it does not cover them.
func offerPrice(quote *sharingv1alpha1.Quote, o *sharingv1alpha1.Offer) (*big.Rat, string, string) {
	currencyOK := func(c string) bool { return quote.Spec.Currency == "" || c == quote.Spec.Currency }
	if w := o.Spec.Whole; w != nil && w.Interest > 0 && w.Price != nil && currencyOK(w.Price.Currency) {
		if r, ok := PerHour(w.Price.Amount, w.Price.Period); ok {
			return r, w.Price.Currency, ""
		}
	}
	items := map[string]sharingv1alpha1.OfferTerms{}
	for _, it := range o.Spec.Items {
		items[it.Component] = it.OfferTerms
	}
	total, currency := new(big.Rat), ""
	for _, c := range quote.Spec.Components {
		t, ok := items[c.Name]
		if !ok || t.Interest == 0 || t.Price == nil {
			return nil, "", fmt.Sprintf("no interest in component %q", c.Name)
		}
		if !currencyOK(t.Price.Currency) || (currency != "" && t.Price.Currency != currency) {
			return nil, "", fmt.Sprintf("component %q is priced in %s, want %s", c.Name, t.Price.Currency, quote.Spec.Currency)
		}
		currency = t.Price.Currency
		r, ok := PerHour(t.Price.Amount, t.Price.Period)
		if !ok {
			return nil, "", fmt.Sprintf("component %q has price period %q", c.Name, t.Price.Period)
		}
		total.Add(total, r)
	}
	return total, currency, ""
}
