package virtualnode

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

func won(mutate func(*Won)) Won {
	w := Won{
		Quote: &sharingv1alpha1.Quote{
			ObjectMeta: metav1.ObjectMeta{Namespace: "meridian-system", Name: "c1.shop.web.0123abcd"},
			Spec: sharingv1alpha1.QuoteSpec{Consumer: "c1", AppID: "shop.web", Components: []sharingv1alpha1.Component{
				{Name: "c0", Replicas: 2, Requests: map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
				{Name: "c1", Replicas: 1, Requests: map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse("500m")}, NodeSelector: map[string]string{corev1.LabelArchStable: "arm64"}},
			}},
			Status: sharingv1alpha1.QuoteStatus{Offer: "peer-p1/c1.shop.web.0123abcd"},
		},
		Offer: &sharingv1alpha1.Offer{
			ObjectMeta: metav1.ObjectMeta{Namespace: "peer-p1", Name: "c1.shop.web.0123abcd"},
			Spec:       sharingv1alpha1.OfferSpec{Provider: "p1", ExpiresAt: metav1.NewTime(t0.Add(24 * time.Hour))},
			Status: sharingv1alpha1.OfferStatus{Conditions: []metav1.Condition{{
				Type: sharingv1alpha1.OfferSelected, Status: metav1.ConditionTrue, Reason: sharingv1alpha1.OfferReasonCheapest,
			}}},
		},
		Peer: peer(sharingv1alpha1.PeerEstablished),
		Ack:  &sharingv1alpha1.Acknowledgement{Status: sharingv1alpha1.AcknowledgementStatus{Decision: sharingv1alpha1.AckConfirmed}},
	}
	if mutate != nil {
		mutate(&w)
	}
	return w
}

func TestPlanOfferNodes(t *testing.T) {
	opts := Options{ConsumerID: "c1", ProviderID: "p1"}
	hash := quoteHash("meridian-system/c1.shop.web.0123abcd")[:10]
	name := func(i string) string { return "vn-p1-offer-" + hash + "-" + i }
	// One node per replica, of the replica's requests and one pod slot.
	all := map[string]string{name("0"): "3/1Gi/1", name("1"): "3/1Gi/1", name("2"): "500m/0/1"}
	old := []corev1.Node{existingNode(name("0")), existingNode(name("1")), existingNode(name("2"))}
	drainAll := []string{name("0"), name("1"), name("2")}
	tests := []struct {
		name     string
		won      Won
		existing []corev1.Node
		now      time.Time
		want     planSummary
	}{
		{name: "confirmed", won: won(nil), now: t0,
			want: planSummary{Nodes: all, Ready: true, Reason: ReasonProviderReachable, Recheck: t0.Add(24 * time.Hour)}},
		{name: "confirmed, provider unreachable", won: won(func(w *Won) { w.Peer = peer(sharingv1alpha1.PeerUnreachable) }), now: t0,
			want: planSummary{Nodes: all, Reason: ReasonPeerUnreachable, Recheck: t0.Add(24 * time.Hour)}},
		{name: "not acknowledged yet", won: won(func(w *Won) { w.Ack = nil }), now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "refused by the provider", won: won(func(w *Won) { w.Ack.Status.Decision = sharingv1alpha1.AckRefused }), existing: old, now: t0,
			want: planSummary{Drain: drainAll, Reason: ReasonOfferNotReserved}},
		{name: "not selected", won: won(func(w *Won) { w.Offer.Status.Conditions[0].Status = metav1.ConditionFalse }), now: t0,
			want: planSummary{Reason: ReasonOfferNotReserved}},
		{name: "released", won: won(func(w *Won) { w.Released = true }), existing: old, now: t0,
			want: planSummary{Drain: drainAll, Reason: ReasonOfferReleased}},
		{name: "expired", won: won(nil), existing: old, now: t0.Add(24 * time.Hour),
			want: planSummary{Drain: drainAll, Reason: ReasonOfferExpired}},
		{name: "auction deleted", won: won(func(w *Won) { w.Quote = nil }), existing: old, now: t0,
			want: planSummary{Drain: drainAll, Reason: ReasonOfferNotReserved}},
		{name: "another provider's offer", won: won(func(w *Won) { w.Offer.Spec.Provider = "p2" }), existing: old, now: t0,
			want: planSummary{Drain: drainAll, Reason: ReasonOfferNotReserved}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanOfferNodes(tc.won, tc.existing, tc.now, opts)
			if diff := cmp.Diff(tc.want, summarize(got)); diff != "" {
				t.Errorf("PlanOfferNodes (-want +got):\n%s", diff)
			}
		})
	}

	// The replicas' node selectors are the nodes' labels, so the pods
	// that started the auction can be bound to them.
	plan := PlanOfferNodes(won(nil), nil, t0, opts)
	if got := plan.Nodes[2].Labels[corev1.LabelArchStable]; got != "arm64" {
		t.Errorf("node of the arm64 component has arch label %q, want arm64", got)
	}
	if got := plan.Nodes[0].Spec.Taints; len(got) != 1 || got[0].Key != sharingv1alpha1.TaintVirtualNode {
		t.Errorf("offer node taints = %v, want the virtual-node taint", got)
	}
}
