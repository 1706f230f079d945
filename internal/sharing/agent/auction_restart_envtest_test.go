package agent_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing/agent"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestAuctionRestartKeepsWinner: consumer home's agent stopped in the
// middle of closing an auction, after it recorded prov-1's offer as the
// winner (its Selected condition) and confirmed it to prov-1, before it
// wrote anything about prov-2's offer, which it had not seen yet. prov-2's
// offer is cheaper, so a fresh pick would choose it. The agent that starts
// next must keep the recorded winner: confirm prov-1 only, decline prov-2
// (whose bid came after the pick), and close the Quote with prov-1.
// Otherwise both providers hold a confirmed reservation for one pod.
func TestAuctionRestartKeepsWinner(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 2})
	home, p1, p2 := env.Management, env.Members[0], env.Members[1]
	p1.InstallCRDs(t)
	p2.InstallCRDs(t)
	home.CreateNamespaces(t, agentNS, "from-prov-1", "from-prov-2")
	p1.CreateNamespaces(t, agentNS, "from-home")
	p2.CreateNamespaces(t, agentNS, "from-home")
	peer(t, home, p1, "prov-1", sharingv1alpha1.RoleProvider, "from-prov-1", "from-home", nil)
	peer(t, home, p2, "prov-2", sharingv1alpha1.RoleProvider, "from-prov-2", "from-home", nil)

	// What the stopped agent left: its auction, both offers (written by
	// the providers before the deadline), prov-1's recorded as selected
	// and confirmed to prov-1.
	now := time.Now().Truncate(time.Second)
	const name = "home.apps.web.0123abcd"
	q := &sharingv1alpha1.Quote{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: agentNS, Labels: map[string]string{agent.LabelAuction: "true"}},
		Spec: sharingv1alpha1.QuoteSpec{Consumer: "home", AppID: "apps.web", Timestamp: metav1.NewTime(now), Deadline: metav1.NewTime(now.Add(3 * time.Second)),
			Components: []sharingv1alpha1.Component{{Name: "c0", Replicas: 1, Requests: map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse("1")}}}},
	}
	if err := home.Client.Create(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	offer := func(ns string, provider sharingv1alpha1.ClusterID, price string) *sharingv1alpha1.Offer {
		o := &sharingv1alpha1.Offer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: sharingv1alpha1.OfferSpec{
			Provider: provider, Quote: name, AppID: "apps.web", Timestamp: metav1.NewTime(now), ExpiresAt: metav1.NewTime(now.Add(10 * time.Minute)),
			Whole: &sharingv1alpha1.OfferTerms{Interest: 100, Price: &sharingv1alpha1.Money{Amount: resource.MustParse(price), Currency: "EUR", Period: sharingv1alpha1.PeriodHour}},
		}}
		if err := home.Client.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	won := offer("from-prov-1", "prov-1", "0.5")
	offer("from-prov-2", "prov-2", "0.3")
	won.Status.Conditions = []metav1.Condition{{Type: sharingv1alpha1.OfferSelected, Status: metav1.ConditionTrue, Reason: sharingv1alpha1.OfferReasonCheapest,
		Message: "cheapest fitting offer: 0.5000 EUR per hour", LastTransitionTime: metav1.NewTime(now)}}
	if err := home.Client.Status().Update(t.Context(), won); err != nil {
		t.Fatal(err)
	}
	sent := &sharingv1alpha1.Acknowledgement{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "from-home"},
		Spec: sharingv1alpha1.AcknowledgementSpec{Consumer: "home", Offer: name, Quote: name, AppID: "apps.web", Confirm: true}}
	if err := p1.Client.Create(t.Context(), sent); err != nil {
		t.Fatal(err)
	}

	startAgent(t, home, "home")

	type result struct {
		Winner   string
		Selected map[string]string
		Acks     map[string]bool
	}
	want := result{
		Winner:   "from-prov-1/" + name,
		Selected: map[string]string{"from-prov-1": "True/" + sharingv1alpha1.OfferReasonCheapest, "from-prov-2": "False/" + sharingv1alpha1.OfferReasonLate},
		Acks:     map[string]bool{"prov-1": true, "prov-2": false},
	}
	testenv.Eventually(t, 60*time.Second, "the restarted agent closes with the recorded winner", func() string {
		got := result{Selected: map[string]string{}, Acks: map[string]bool{}}
		closed := &sharingv1alpha1.Quote{}
		if err := home.Client.Get(t.Context(), client.ObjectKeyFromObject(q), closed); err != nil {
			return err.Error()
		}
		if !meta.IsStatusConditionTrue(closed.Status.Conditions, sharingv1alpha1.QuoteAnswered) {
			return "not closed yet"
		}
		got.Winner = closed.Status.Offer
		for _, ns := range []string{"from-prov-1", "from-prov-2"} {
			o := &sharingv1alpha1.Offer{}
			if err := home.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, o); err != nil {
				return err.Error()
			}
			if c := meta.FindStatusCondition(o.Status.Conditions, sharingv1alpha1.OfferSelected); c != nil {
				got.Selected[ns] = string(c.Status) + "/" + c.Reason
			}
		}
		for id, c := range map[string]*testenv.Cluster{"prov-1": p1, "prov-2": p2} {
			a := &sharingv1alpha1.Acknowledgement{}
			if err := c.Client.Get(t.Context(), client.ObjectKey{Namespace: "from-home", Name: name}, a); err != nil {
				return err.Error()
			}
			got.Acks[id] = a.Spec.Confirm
		}
		return cmp.Diff(want, got)
	})
}
