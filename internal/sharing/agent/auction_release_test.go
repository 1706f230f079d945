package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

func TestReleaseOf(t *testing.T) {
	peer := func(id sharingv1alpha1.ClusterID, ns string, role sharingv1alpha1.PeerRole, broker, disabled bool) sharingv1alpha1.Peer {
		return sharingv1alpha1.Peer{ObjectMeta: metav1.ObjectMeta{Name: string(id)}, Spec: sharingv1alpha1.PeerSpec{ClusterID: id, Namespace: ns, Role: role, Broker: broker, Disabled: disabled}}
	}
	prov := peer("prov", "from-prov", sharingv1alpha1.RoleProvider, false, false)
	brk := peer("broker", "from-broker", sharingv1alpha1.RoleProvider, true, false)
	quote := func(answered metav1.ConditionStatus, offer string, provider sharingv1alpha1.ClusterID) *sharingv1alpha1.Quote {
		q := &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: "home.apps.web.1a2b3c4d"}, Spec: sharingv1alpha1.QuoteSpec{AppID: "apps.web"},
			Status: sharingv1alpha1.QuoteStatus{Offer: offer, Provider: provider}}
		if answered != "" {
			q.Status.Conditions = []metav1.Condition{{Type: sharingv1alpha1.QuoteAnswered, Status: answered}}
		}
		return q
	}
	type result struct {
		To     sharingv1alpha1.ClusterID
		Source string
		OK     bool
	}
	cases := []struct {
		name  string
		q     *sharingv1alpha1.Quote
		peers []sharingv1alpha1.Peer
		want  result
	}{
		{"a won direct auction: into the provider, for its offer", quote(metav1.ConditionTrue, "from-prov/prov.home.apps.web", "prov"), []sharingv1alpha1.Peer{prov}, result{"prov", "prov.home.apps.web", true}},
		{"a won brokered auction: at the broker, for the copy named after the quote", quote(metav1.ConditionTrue, "member-prov/home.apps.web.1a2b3c4d.5e6f7a8b", "prov"), []sharingv1alpha1.Peer{prov, brk}, result{"broker", "home.apps.web.1a2b3c4d", true}},
		{"a lost auction: nothing", quote(metav1.ConditionFalse, "", ""), []sharingv1alpha1.Peer{prov, brk}, result{}},
		{"an open auction: nothing", quote("", "", ""), []sharingv1alpha1.Peer{prov, brk}, result{}},
		{"the provider's Peer disabled: nobody to tell", quote(metav1.ConditionTrue, "from-prov/prov.home.apps.web", "prov"), []sharingv1alpha1.Peer{peer("prov", "from-prov", sharingv1alpha1.RoleProvider, false, true)}, result{}},
		{"an offer in a namespace of another cluster's Peer: nothing", quote(metav1.ConditionTrue, "from-prov/prov.home.apps.web", "other"), []sharingv1alpha1.Peer{prov}, result{}},
		{"the broker gone: nobody to tell", quote(metav1.ConditionTrue, "member-prov/home.apps.web.1a2b3c4d.5e6f7a8b", "prov"), []sharingv1alpha1.Peer{prov}, result{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, spec, ok := releaseOf(tc.q, tc.peers, "home")
			got := result{Source: spec.Source.Name, OK: ok}
			if p != nil {
				got.To = p.Spec.ClusterID
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("releaseOf (-want +got):\n%s", diff)
			}
			if ok && (spec.Consumer != "home" || spec.Source.Kind != sharingv1alpha1.SourceOffer || spec.AppID != "apps.web") {
				t.Errorf("release spec %+v, want consumer home, kind Offer, appID apps.web", spec)
			}
		})
	}
}
