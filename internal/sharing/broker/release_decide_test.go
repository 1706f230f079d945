package broker

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

func TestRouteRelease(t *testing.T) {
	cons := &member{Namespace: "member-c", ClusterID: "c", Registration: &sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{Role: sharingv1alpha1.RoleConsumer}}}
	prov := &member{Namespace: "member-p", ClusterID: "p", Registration: &sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{Role: sharingv1alpha1.RoleProvider}}}
	gone := &member{Namespace: "member-g", ClusterID: "g", Registration: &sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{Role: sharingv1alpha1.RoleProvider, Disabled: true}}}
	members := map[string]*member{cons.Namespace: cons, prov.Namespace: prov, gone.Namespace: gone}
	release := func(consumer sharingv1alpha1.ClusterID, kind sharingv1alpha1.SourceKind) *sharingv1alpha1.Release {
		return &sharingv1alpha1.Release{Spec: sharingv1alpha1.ReleaseSpec{Consumer: consumer, Source: sharingv1alpha1.SourceReference{Kind: kind, Name: "c.app"}}}
	}
	handed := func(won string, provider sharingv1alpha1.ClusterID) *sharingv1alpha1.Offer {
		return &sharingv1alpha1.Offer{ObjectMeta: metav1.ObjectMeta{Name: "c.app", Namespace: "member-c", Annotations: map[string]string{AnnotationWonOffer: won}},
			Spec: sharingv1alpha1.OfferSpec{Provider: provider}}
	}
	type result struct {
		Provider sharingv1alpha1.ClusterID
		Offer    string
		Reason   string
		OK       bool
	}
	cases := []struct {
		name   string
		rel    *sharingv1alpha1.Release
		handed *sharingv1alpha1.Offer
		want   result
	}{
		{"a won offer goes to its provider", release("c", sharingv1alpha1.SourceOffer), handed("member-p/c.app.1234abcd", "p"), result{Provider: "p", Offer: "c.app.1234abcd", OK: true}},
		{"another consumer's claim", release("p", sharingv1alpha1.SourceOffer), handed("member-p/c.app.1234abcd", "p"), result{Reason: sharing.ReasonConsumerMismatch}},
		{"an advertisement", release("c", sharingv1alpha1.SourceAdvertisement), handed("member-p/c.app.1234abcd", "p"), result{Reason: ReasonWrongSource}},
		{"no offer handed over", release("c", sharingv1alpha1.SourceOffer), nil, result{Reason: ReasonNotHandedOver}},
		{"an offer the consumer wrote itself", release("c", sharingv1alpha1.SourceOffer), handed("", "p"), result{Reason: ReasonNotHandedOver}},
		{"a provider that stopped lending", release("c", sharingv1alpha1.SourceOffer), handed("member-g/c.app.1234abcd", "g"), result{Reason: ReasonNotHandedOver}},
		{"a copy naming another provider", release("c", sharingv1alpha1.SourceOffer), handed("member-p/c.app.1234abcd", "g"), result{Reason: ReasonNotHandedOver}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target, reason, msg, ok := routeRelease(tc.rel, cons, tc.handed, members)
			got := result{Offer: target.Offer, Reason: reason, OK: ok}
			if target.Provider != nil {
				got.Provider = target.Provider.ClusterID
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("routeRelease (-want +got):\n%s", diff)
			}
			if !ok && msg == "" {
				t.Error("a refused release has no message")
			}
		})
	}
	fwd := forwardedRelease("broker", &sharingv1alpha1.Release{Spec: sharingv1alpha1.ReleaseSpec{Consumer: "c", AppID: "apps.web", Reason: "done"}}, releaseTarget{Provider: prov, Offer: "c.app.1234abcd"})
	want := sharingv1alpha1.ReleaseSpec{Consumer: "broker", Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: "c.app.1234abcd"}, AppID: "apps.web", Reason: "done"}
	if diff := cmp.Diff(want, fwd); diff != "" {
		t.Errorf("forwardedRelease (-want +got):\n%s", diff)
	}
}

func TestReleaseReport(t *testing.T) {
	at := metav1.NewTime(t0)
	cases := []struct {
		name   string
		status sharingv1alpha1.ReleaseStatus
		want   string
		ok     bool
	}{
		{"not answered", sharingv1alpha1.ReleaseStatus{}, "", false},
		{"freed", sharingv1alpha1.ReleaseStatus{ReleasedTime: &at, Conditions: []metav1.Condition{{Type: sharingv1alpha1.ReleaseDone, Status: metav1.ConditionTrue, Reason: sharingv1alpha1.ReleaseReasonFreed, Message: "broker/Offer/x"}}},
			`True/Freed/provider "p": broker/Offer/x`, true},
		{"nothing held", sharingv1alpha1.ReleaseStatus{ReleasedTime: &at, Conditions: []metav1.Condition{{Type: sharingv1alpha1.ReleaseDone, Status: metav1.ConditionTrue, Reason: sharingv1alpha1.ReleaseReasonNotFound, Message: "broker/Offer/x"}}},
			`True/NothingHeld/provider "p": broker/Offer/x`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, when, ok := releaseReport(&sharingv1alpha1.Release{Status: tc.status}, "p", 3)
			got := ""
			if ok {
				got = string(c.Status) + "/" + c.Reason + "/" + c.Message
				if c.ObservedGeneration != 3 || when == nil || !when.Equal(&at) {
					t.Errorf("generation %d, releasedTime %v; want 3, %v", c.ObservedGeneration, when, at)
				}
			}
			if diff := cmp.Diff([]any{tc.want, tc.ok}, []any{got, ok}); diff != "" {
				t.Errorf("releaseReport (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEndsAt(t *testing.T) {
	released := metav1.NewTime(t0)
	cases := []struct {
		name     string
		expires  time.Time
		released *metav1.Time
		want     time.Time
		ok       bool
	}{
		{"released before expiry ends then", t0.Add(24 * time.Hour), &released, t0, true},
		{"no release time ends now", t0.Add(24 * time.Hour), nil, t0.Add(time.Minute), true},
		{"already expired stays", t0.Add(-time.Hour), &released, time.Time{}, false},
		{"already ended stays", t0, &released, time.Time{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &sharingv1alpha1.Offer{Spec: sharingv1alpha1.OfferSpec{ExpiresAt: metav1.NewTime(tc.expires)}}
			got, ok := endsAt(o, tc.released, t0.Add(time.Minute))
			if diff := cmp.Diff([]any{tc.want, tc.ok}, []any{got.Time, ok}); diff != "" {
				t.Errorf("endsAt (-want +got):\n%s", diff)
			}
		})
	}
}
