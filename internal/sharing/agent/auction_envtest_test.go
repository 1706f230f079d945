package agent_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing/agent"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestAuction: consumer home refuses both providers' advertisements (their
// prices are above its ceiling), so its unschedulable pod fits no accepted
// shape and starts an auction; prov-1 offers at 0.5 EUR per CPU-hour,
// prov-2 at 0.3; prov-2 wins, confirms and reserves; prov-1 is declined
// and frees its hold.
func TestAuction(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 2})
	home, p1, p2 := env.Management, env.Members[0], env.Members[1]
	p1.InstallCRDs(t)
	p2.InstallCRDs(t)
	home.CreateNamespaces(t, agentNS, "from-prov-1", "from-prov-2", "apps")
	p1.CreateNamespaces(t, agentNS, "from-home")
	p2.CreateNamespaces(t, agentNS, "from-home")
	node(t, p1, "n1", "8", "16Gi")
	node(t, p2, "n1", "8", "16Gi")
	peer(t, home, p1, "prov-1", sharingv1alpha1.RoleProvider, "from-prov-1", "from-home", nil)
	peer(t, home, p2, "prov-2", sharingv1alpha1.RoleProvider, "from-prov-2", "from-home", nil)
	peer(t, p1, home, "home", sharingv1alpha1.RoleConsumer, "from-home", "from-prov-1", &sharingv1alpha1.OutgoingPolicy{SharePercent: 50, Prices: eur("0.5")})
	peer(t, p2, home, "home", sharingv1alpha1.RoleConsumer, "from-home", "from-prov-2", &sharingv1alpha1.OutgoingPolicy{SharePercent: 50, Prices: eur("0.3")})
	retry := func(o *agent.Options) { o.AuctionRetry = 2 * time.Second }
	stopHome := startAgent(t, home, "home", retry)
	startAgent(t, p1, "prov-1")
	startAgent(t, p2, "prov-2")

	testenv.Eventually(t, 60*time.Second, "both advertisements refused by price", func() string {
		var list sharingv1alpha1.AdvertisementList
		if err := home.Client.List(t.Context(), &list); err != nil {
			return err.Error()
		}
		var got []string
		for _, a := range list.Items {
			got = append(got, a.Name+"="+string(a.Status.Reason)+" "+ready(a.Status.Conditions))
		}
		return cmp.Diff([]string{"prov-1=PriceAboveCeiling Ready=False/PolicyRefused", "prov-2=PriceAboveCeiling Ready=False/PolicyRefused"}, got)
	})

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "web", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
	}}}}
	if err := home.Client.Create(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}
	if err := home.Client.Status().Update(t.Context(), pod); err != nil {
		t.Fatal(err)
	}

	// The consumer's agent restarts in the middle of the auction: the
	// Quote in its namespace is the auction's record, so it carries on.
	testenv.Eventually(t, 30*time.Second, "the auction starts", func() string {
		var list sharingv1alpha1.QuoteList
		if err := home.Client.List(t.Context(), &list, client.InNamespace(agentNS)); err != nil {
			return err.Error()
		}
		return cmp.Diff(1, len(list.Items))
	})
	stopHome()
	startAgent(t, home, "home", retry)

	var won, wonQuote string
	testenv.Eventually(t, 60*time.Second, "the auction closes", func() string {
		var list sharingv1alpha1.QuoteList
		if err := home.Client.List(t.Context(), &list, client.InNamespace(agentNS)); err != nil {
			return err.Error()
		}
		if len(list.Items) != 1 {
			return "quotes: " + cmp.Diff(1, len(list.Items))
		}
		c := meta.FindStatusCondition(list.Items[0].Status.Conditions, sharingv1alpha1.QuoteAnswered)
		if c == nil {
			return "not closed yet"
		}
		won, wonQuote = list.Items[0].Status.Offer, list.Items[0].Name
		return cmp.Diff("True/Offered Ready=True/Offered", string(c.Status)+"/"+c.Reason+" "+ready(list.Items[0].Status.Conditions))
	})
	if diff := cmp.Diff("from-prov-2/", won[:len("from-prov-2/")]); diff != "" {
		t.Errorf("winning offer (-want +got):\n%s", diff)
	}
	ack := func(c *testenv.Cluster) string {
		var list sharingv1alpha1.AcknowledgementList
		if err := c.Client.List(t.Context(), &list, client.InNamespace("from-home")); err != nil || len(list.Items) != 1 {
			return "none"
		}
		a := list.Items[0]
		return string(a.Status.Decision) + "/" + string(a.Status.Reason) + " " + ready(a.Status.Conditions)
	}
	testenv.Eventually(t, 30*time.Second, "prov-2 confirms and reserves, prov-1 is declined", func() string {
		type got struct {
			P1, P2         string
			P2Reservations []string
		}
		var offered []string
		for _, r := range reservations(t, p2) {
			if r != "home.advertisement.prov-2=Offered" {
				offered = append(offered, r)
			}
		}
		return cmp.Diff(got{"Refused/Declined Ready=True/Declined", "Confirmed/Reserved Ready=True/Reserved", []string{"home.offer." + won[len("from-prov-2/"):] + "=Reserved"}},
			got{ack(p1), ack(p2), offered})
	})
	for _, r := range reservations(t, p1) {
		if r != "home.advertisement.prov-1=Offered" {
			t.Errorf("prov-1 still holds %s after being declined", r)
		}
	}

	// A pod no provider can host loses its auction; after AuctionRetry
	// the lost auction is deleted and the pod starts another.
	huge := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "huge", Namespace: "apps"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "huge", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}},
	}}}}
	if err := home.Client.Create(t.Context(), huge); err != nil {
		t.Fatal(err)
	}
	huge.Status = pod.Status
	if err := home.Client.Status().Update(t.Context(), huge); err != nil {
		t.Fatal(err)
	}
	seen := map[types.UID]string{}
	testenv.Eventually(t, 60*time.Second, "a lost auction, then another", func() string {
		var list sharingv1alpha1.QuoteList
		if err := home.Client.List(t.Context(), &list, client.InNamespace(agentNS)); err != nil {
			return err.Error()
		}
		for _, q := range list.Items {
			if q.Spec.AppID != "apps.huge" {
				continue
			}
			if c := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.QuoteAnswered); c != nil {
				seen[q.UID] = c.Reason
			} else if _, ok := seen[q.UID]; !ok {
				seen[q.UID] = "open"
			}
		}
		lost := 0
		for _, r := range seen {
			if r == sharingv1alpha1.QuoteReasonNoCapacity {
				lost++
			}
		}
		if len(seen) >= 2 && lost >= 1 {
			return ""
		}
		return fmt.Sprintf("auctions of apps.huge seen: %v", seen)
	})

	// The won auction deleted (its pod is gone): home's agent writes a
	// Release of the offer into prov-2, which frees the reservation at
	// once, and the auction goes.
	offer := won[len("from-prov-2/"):]
	if err := home.Client.Delete(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	wonQ := &sharingv1alpha1.Quote{}
	if err := home.Client.Get(t.Context(), client.ObjectKey{Namespace: agentNS, Name: wonQuote}, wonQ); err != nil {
		t.Fatal(err)
	}
	if err := home.Client.Delete(t.Context(), wonQ); err != nil {
		t.Fatal(err)
	}
	rel := &sharingv1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: agent.ReleaseName(wonQ), Namespace: "from-home"}}
	testenv.Eventually(t, 30*time.Second, "the release frees the reservation", func() string {
		if err := home.Client.Get(t.Context(), client.ObjectKey{Namespace: agentNS, Name: wonQuote}, &sharingv1alpha1.Quote{}); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("the won auction is still there: %v", err)
		}
		if err := p2.Client.Get(t.Context(), client.ObjectKeyFromObject(rel), rel); err != nil {
			return err.Error()
		}
		if rel.Spec.Source.Name != offer || rel.Spec.Consumer != "home" {
			return fmt.Sprintf("release of %q by %q, want of %q by home", rel.Spec.Source.Name, rel.Spec.Consumer, offer)
		}
		c := meta.FindStatusCondition(rel.Status.Conditions, sharingv1alpha1.ReleaseDone)
		if c == nil {
			return "not released yet"
		}
		return cmp.Diff([]any{"Freed", "Ready=True/Freed", false}, []any{c.Reason, ready(rel.Status.Conditions), contains(reservations(t, p2), "home.offer."+offer+"=Reserved")})
	})

	// An offer nobody acknowledges holds its capacity until OfferHold after
	// the quote's deadline, then its reservation is gone.
	now := time.Now().Truncate(time.Second)
	q := &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: "unanswered", Namespace: "from-home"}, Spec: sharingv1alpha1.QuoteSpec{
		Consumer: "home", AppID: "apps.batch", Timestamp: metav1.NewTime(now), Deadline: metav1.NewTime(now.Add(3 * time.Second)),
		Components: []sharingv1alpha1.Component{{Name: "c0", Replicas: 1, Requests: map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse("1")}}}}}
	if err := p1.Client.Create(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 20*time.Second, "prov-1 holds the unanswered offer", func() string {
		return cmp.Diff(true, contains(reservations(t, p1), "home.offer.unanswered=Offered"))
	})
	testenv.Eventually(t, 30*time.Second, "the unacknowledged offer expires", func() string {
		return cmp.Diff(false, contains(reservations(t, p1), "home.offer.unanswered=Offered"))
	})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ready is a message's summary condition as "Ready=Status/Reason".
func ready(conds []metav1.Condition) string {
	c := meta.FindStatusCondition(conds, sharingv1alpha1.ConditionReady)
	if c == nil {
		return "Ready=none"
	}
	return "Ready=" + string(c.Status) + "/" + c.Reason
}
