package sharing_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// TestCloseAuction: a fresh close picks as SelectOffer does; once a
// decision is recorded on the Offers it stands, whatever came since (a
// cheaper bid, the clock past every offer's expiry), and a bid with no
// recorded verdict is declined as late.
func TestCloseAuction(t *testing.T) {
	quote := validQuote() // deadline t0+10s
	quote.Name = "shop-1"
	at := t0.Add(5 * time.Second)
	bid := func(ns string, provider sharingv1alpha1.ClusterID, amount string, expires time.Duration, selected ...string) sharing.Bid {
		o := offer("shop-1", provider, amount, "", expires)
		o.Namespace = ns
		if len(selected) == 2 {
			o.Status.Conditions = []metav1.Condition{{Type: sharingv1alpha1.OfferSelected, Status: metav1.ConditionStatus(selected[0]), Reason: selected[1], Message: "recorded"}}
		}
		return sharing.Bid{Offer: o, ReceivedAt: at}
	}
	// quote was created at t0; a bid received before was made for an
	// earlier auction.
	quote.CreationTimestamp = t0
	earlier := func(b sharing.Bid) sharing.Bid {
		b.ReceivedAt = t0.Add(-time.Hour)
		return b
	}
	cases := []struct {
		name string
		bids []sharing.Bid
		now  time.Time
		want []string
	}{
		{"fresh: the cheapest wins, the others are outbid; the winner's verdict comes first, to be recorded first",
			[]sharing.Bid{bid("from-a", "provider-a", "1", time.Minute), bid("from-b", "provider-b", "0.6", time.Minute)}, t0.Add(11 * time.Second),
			[]string{"winner from-b 0.6000 EUR fresh", "from-b True CheapestFit", "from-a False Outbid"}},
		{"fresh: nothing fits",
			[]sharing.Bid{bid("from-a", "provider-a", "1", 5*time.Second)}, t0.Add(11 * time.Second),
			[]string{"no winner fresh", "from-a False Expired"}},
		{"fresh: no bids",
			nil, t0.Add(11 * time.Second),
			[]string{"no winner fresh"}},
		{"recorded: the winner stands against a cheaper bid that came after the pick",
			[]sharing.Bid{bid("from-a", "provider-a", "1", time.Minute, "True", "CheapestFit"), bid("from-b", "provider-b", "0.1", time.Minute)}, t0.Add(11 * time.Second),
			[]string{"winner from-a 1.0000 EUR recorded", "from-a True CheapestFit", "from-b False ArrivedAfterDeadline"}},
		{"recorded: the winner stands after every offer expired",
			[]sharing.Bid{bid("from-a", "provider-a", "1", time.Minute, "True", "CheapestFit"), bid("from-b", "provider-b", "0.6", time.Minute, "False", "Outbid"), bid("from-c", "provider-c", "0.1", time.Minute)}, t0.Add(time.Hour),
			[]string{"winner from-a 1.0000 EUR recorded", "from-a True CheapestFit", "from-b False Outbid", "from-c False ArrivedAfterDeadline"}},
		{"recorded: a close without a winner stays one",
			[]sharing.Bid{bid("from-a", "provider-a", "1", time.Minute, "False", "Expired"), bid("from-b", "provider-b", "0.6", time.Minute)}, t0.Add(11 * time.Second),
			[]string{"no winner recorded", "from-a False Expired", "from-b False ArrivedAfterDeadline"}},
		{"an earlier auction's offer of the same name is no bid, and its verdict no record",
			[]sharing.Bid{earlier(bid("from-a", "provider-a", "0.1", time.Hour, "True", "CheapestFit")), bid("from-b", "provider-b", "0.6", time.Minute)}, t0.Add(11 * time.Second),
			[]string{"winner from-b 0.6000 EUR fresh", "from-b True CheapestFit"}},
		{"recorded: of two recorded winners only the first is confirmed",
			[]sharing.Bid{bid("from-a", "provider-a", "1", time.Minute, "True", "CheapestFit"), bid("from-b", "provider-b", "0.6", time.Minute, "True", "CheapestFit")}, t0.Add(11 * time.Second),
			[]string{"winner from-a 1.0000 EUR recorded", "from-a True CheapestFit", "from-b False Outbid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := sharing.CloseAuction(quote, tc.bids, tc.now)
			how := map[bool]string{false: "fresh", true: "recorded"}[c.Recorded]
			got := []string{"no winner " + how}
			if c.Winner != nil {
				got = []string{"winner " + c.Winner.Namespace + " " + c.PriceString() + " " + how}
			}
			for _, v := range c.Verdicts {
				cond := v.Condition()
				got = append(got, v.Offer.Namespace+" "+string(cond.Status)+" "+cond.Reason)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CloseAuction (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerdictRecord: a verdict is written once; recording a decision read
// back changes nothing, so nothing is patched again.
func TestVerdictRecord(t *testing.T) {
	quote := validQuote()
	quote.Name = "shop-1"
	o := offer("shop-1", "provider-a", "1", "", time.Minute)
	bids := []sharing.Bid{{Offer: o, ReceivedAt: t0.Add(time.Second)}}
	var got []bool
	for range 2 {
		c := sharing.CloseAuction(quote, bids, t0.Add(11*time.Second))
		got = append(got, c.Verdicts[0].Record(), c.Recorded)
	}
	if diff := cmp.Diff([]bool{true, false, false, true}, got); diff != "" {
		t.Errorf("Record, Recorded of two closes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("True/CheapestFit", string(o.Status.Conditions[0].Status)+"/"+o.Status.Conditions[0].Reason); diff != "" {
		t.Errorf("recorded condition (-want +got):\n%s", diff)
	}
}
