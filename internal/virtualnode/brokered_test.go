package virtualnode

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// TestBrokered: an auction a broker ran becomes the same virtual nodes as
// a direct one once the broker answered it for this provider, from the
// offer it handed over, while this consumer has a Peer of the provider
// that lends to it directly; otherwise none.
func TestBrokered(t *testing.T) {
	opts := Options{ConsumerID: "c1", ProviderID: "p1"}
	hash := quoteHash("meridian-system/c1.shop.web.0123abcd")[:10]
	name := func(i string) string { return "vn-p1-offer-" + hash + "-" + i }
	all := map[string]string{name("0"): "3/1Gi/1", name("1"): "3/1Gi/1", name("2"): "500m/0/1"}
	// What the consumer observed of its own auction: the broker's answer,
	// copied into its Quote, names the offer where p1 wrote it at the
	// broker, which this consumer cannot read.
	brokered := func(mutate func(q *sharingv1alpha1.Quote)) Won {
		w := won(nil)
		q := w.Quote
		q.Status = sharingv1alpha1.QuoteStatus{Offer: "member-p1/c1.shop.web.0123abcd.5e6f7a8b", Provider: "p1",
			Conditions: []metav1.Condition{{Type: sharingv1alpha1.QuoteAnswered, Status: metav1.ConditionTrue, Reason: sharingv1alpha1.QuoteReasonOffered}}}
		if mutate != nil {
			mutate(q)
		}
		return Won{Quote: q}
	}
	handed := func(provider sharingv1alpha1.ClusterID) *sharingv1alpha1.Offer {
		o := won(nil).Offer
		o.Namespace, o.Spec.Provider = "member-c1", provider
		return o
	}
	direct := peer(sharingv1alpha1.PeerEstablished)
	direct.Spec.ClusterID, direct.Spec.Role = "p1", sharingv1alpha1.RoleProvider
	broker := sharingv1alpha1.Peer{ObjectMeta: metav1.ObjectMeta{Name: "broker"}, Spec: sharingv1alpha1.PeerSpec{ClusterID: "broker", Role: sharingv1alpha1.RoleProvider, Broker: true}}
	disabled := direct.DeepCopy()
	disabled.Spec.Disabled = true
	lendsToP1 := direct.DeepCopy()
	lendsToP1.Spec.Role = sharingv1alpha1.RoleConsumer
	tests := []struct {
		name   string
		won    Won
		handed *sharingv1alpha1.Offer
		peers  []sharingv1alpha1.Peer
		now    time.Time
		want   planSummary
	}{
		{name: "answered for this provider", won: brokered(nil), handed: handed("p1"), peers: []sharingv1alpha1.Peer{broker, *direct}, now: t0,
			want: planSummary{Nodes: all, Ready: true, Reason: ReasonProviderReachable, Recheck: t0.Add(24 * time.Hour)}},
		{name: "not answered yet", won: brokered(func(q *sharingv1alpha1.Quote) { q.Status = sharingv1alpha1.QuoteStatus{} }), handed: handed("p1"), peers: []sharingv1alpha1.Peer{broker, *direct}, now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "no winner", won: brokered(func(q *sharingv1alpha1.Quote) { q.Status.Conditions[0].Status = metav1.ConditionFalse }), handed: handed("p1"), peers: []sharingv1alpha1.Peer{broker, *direct}, now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "won by another provider", won: brokered(func(q *sharingv1alpha1.Quote) { q.Status.Provider = "p2" }), handed: handed("p2"), peers: []sharingv1alpha1.Peer{broker, *direct}, now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "handed offer of another provider", won: brokered(nil), handed: handed("p2"), peers: []sharingv1alpha1.Peer{broker, *direct}, now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "nothing handed over", won: brokered(nil), peers: []sharingv1alpha1.Peer{broker, *direct}, now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "no direct Peer of the provider", won: brokered(nil), handed: handed("p1"), peers: []sharingv1alpha1.Peer{broker}, now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "direct Peer disabled", won: brokered(nil), handed: handed("p1"), peers: []sharingv1alpha1.Peer{broker, *disabled}, now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "the provider borrows from this consumer only", won: brokered(nil), handed: handed("p1"), peers: []sharingv1alpha1.Peer{broker, *lendsToP1}, now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "expired", won: brokered(nil), handed: handed("p1"), peers: []sharingv1alpha1.Peer{broker, *direct}, now: t0.Add(24 * time.Hour),
			want: planSummary{Reason: ReasonOfferExpired}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanOfferNodes(Brokered(tc.won, tc.handed, tc.peers, opts.ProviderID), []corev1.Node{}, tc.now, opts)
			if diff := cmp.Diff(tc.want, summarize(got)); diff != "" {
				t.Errorf("PlanOfferNodes(Brokered(...)) (-want +got):\n%s", diff)
			}
		})
	}
}
