package sharing_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

func offer(name string, provider sharingv1alpha1.ClusterID, amount string, period sharingv1alpha1.PricePeriod, expires time.Duration) *sharingv1alpha1.Offer {
	o := validOffer()
	o.Name, o.Spec.Provider = name, provider
	o.Spec.Whole.Price = &sharingv1alpha1.Money{Amount: q(amount), Currency: "EUR", Period: period}
	o.Spec.ExpiresAt = metav1.NewTime(t0.Add(expires))
	return o
}

func TestSelectOffer(t *testing.T) {
	quote := validQuote() // deadline t0+10s
	quote.Name = "shop-1"
	at := t0.Add(5 * time.Second)
	itemized := validOffer()
	itemized.Name, itemized.Spec.Provider, itemized.Spec.Whole = "itemized", "provider-i", nil
	itemized.Spec.Items[1].OfferTerms = sharingv1alpha1.OfferTerms{Interest: 50, Price: &sharingv1alpha1.Money{Amount: q("0.05"), Currency: "EUR"}}
	noDB := validOffer()
	noDB.Name, noDB.Spec.Provider, noDB.Spec.Whole = "no-db", "provider-n", nil
	usd := offer("usd", "provider-u", "0.01", "", time.Minute)
	usd.Spec.Whole.Price.Currency = "USD"

	tests := []struct {
		name         string
		bids         []sharing.Bid
		now          time.Time
		wantWinner   string
		wantRejected map[string]string
		wantErr      error
		// quote changes the quote for the case; wantMessage is in every
		// rejection's message.
		quote       func(*sharingv1alpha1.Quote)
		wantMessage string
	}{{
		name: "cheapest fitting offer wins",
		bids: []sharing.Bid{
			{Offer: offer("a", "provider-a", "0.50", "", time.Minute), ReceivedAt: at, Latency: 5 * time.Millisecond},
			{Offer: offer("b", "provider-b", "0.40", "", time.Minute), ReceivedAt: at, Latency: 50 * time.Millisecond},
		},
		now: at, wantWinner: "b", wantRejected: map[string]string{"a": sharingv1alpha1.OfferReasonOutbid},
	}, {
		name: "prices compare per hour across periods",
		bids: []sharing.Bid{
			{Offer: offer("hourly", "provider-a", "0.50", sharingv1alpha1.PeriodHour, time.Minute), ReceivedAt: at},
			{Offer: offer("daily", "provider-b", "11", sharingv1alpha1.PeriodDay, time.Minute), ReceivedAt: at},
		},
		now: at, wantWinner: "daily", wantRejected: map[string]string{"hourly": sharingv1alpha1.OfferReasonOutbid},
	}, {
		name: "a price tie goes to the lower latency; unknown latency loses",
		bids: []sharing.Bid{
			{Offer: offer("far", "provider-a", "0.40", "", time.Minute), ReceivedAt: at, Latency: 80 * time.Millisecond},
			{Offer: offer("near", "provider-b", "0.40", "", time.Minute), ReceivedAt: at, Latency: 3 * time.Millisecond},
			{Offer: offer("unknown", "provider-c", "0.40", "", time.Minute), ReceivedAt: at},
		},
		now: at, wantWinner: "near", wantRejected: map[string]string{"far": sharingv1alpha1.OfferReasonOutbid, "unknown": sharingv1alpha1.OfferReasonOutbid},
	}, {
		name: "expired, late, foreign-currency and partial offers never win even when cheaper",
		bids: []sharing.Bid{
			{Offer: offer("expired", "provider-e", "0.01", "", 4*time.Second), ReceivedAt: t0.Add(time.Second)},
			{Offer: offer("late", "provider-l", "0.01", "", time.Minute), ReceivedAt: t0.Add(11 * time.Second)},
			{Offer: usd, ReceivedAt: at},
			{Offer: noDB, ReceivedAt: at},
			{Offer: offer("fair", "provider-f", "0.90", "", time.Minute), ReceivedAt: at},
		},
		now: at, wantWinner: "fair",
		wantRejected: map[string]string{"expired": sharingv1alpha1.OfferReasonExpired, "late": sharingv1alpha1.OfferReasonLate,
			"usd": sharingv1alpha1.OfferReasonDoesNotFit, "no-db": sharingv1alpha1.OfferReasonDoesNotFit},
	}, {
		name:       "an offer item by item covers the quote with the sum of its items",
		bids:       []sharing.Bid{{Offer: itemized, ReceivedAt: at}, {Offer: offer("whole", "provider-w", "0.26", "", time.Minute), ReceivedAt: at}},
		now:        at,
		wantWinner: "itemized", wantRejected: map[string]string{"whole": sharingv1alpha1.OfferReasonOutbid},
	}, {
		name: "offers in two currencies are not compared when the quote names none",
		bids: []sharing.Bid{
			{Offer: offer("eur", "provider-a", "0.50", "", time.Minute), ReceivedAt: at},
			{Offer: usd, ReceivedAt: at},
		},
		quote: func(q *sharingv1alpha1.Quote) { q.Spec.Currency = "" },
		now:   at, wantErr: sharing.ErrNoOffer,
		wantRejected: map[string]string{"eur": sharingv1alpha1.OfferReasonDoesNotFit, "usd": sharingv1alpha1.OfferReasonDoesNotFit},
		wantMessage:  "spec.currency of quote \"shop-1\" must name one of them",
	}, {
		name:    "no offer fits",
		bids:    []sharing.Bid{{Offer: offer("expired", "provider-e", "0.01", "", 4*time.Second), ReceivedAt: at}},
		now:     at,
		wantErr: sharing.ErrNoOffer, wantRejected: map[string]string{"expired": sharingv1alpha1.OfferReasonExpired},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			quote := quote.DeepCopy()
			if tc.quote != nil {
				tc.quote(quote)
			}
			sel, err := sharing.SelectOffer(quote, tc.bids, tc.now)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			var winner string
			if sel.Winner != nil {
				winner = sel.Winner.Name
			}
			if winner != tc.wantWinner {
				t.Errorf("winner %q, want %q", winner, tc.wantWinner)
			}
			got := map[string]string{}
			for _, r := range sel.Rejected {
				got[r.Offer] = r.Reason
				if r.Message == "" || !strings.Contains(r.Message, tc.wantMessage) {
					t.Errorf("rejection of %s: message %q, want one containing %q", r.Offer, r.Message, tc.wantMessage)
				}
			}
			if tc.wantRejected == nil {
				tc.wantRejected = map[string]string{}
			}
			if diff := cmp.Diff(tc.wantRejected, got); diff != "" {
				t.Errorf("rejections (-want +got):\n%s", diff)
			}
		})
	}
}
