package brokered_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing/agent"
	"github.com/meridian-dev/meridian/internal/sharing/broker"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestBroker runs a broker (the management API server) with two providers
// and a consumer, each its own API server and agent, all of them writing
// with their own service account tokens: they register, the providers
// publish, the consumer queries, and the consumer's auction runs in the
// broker, which is stopped in the middle of it and restarted; then the
// auction is deleted and what it won is released through the broker.
func TestBroker(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	b := env.Management
	// One after another: four API servers starting at once time out on a
	// busy machine.
	var members []*testenv.Cluster
	for _, name := range []string{"prov-1", "prov-2", "cons"} {
		m, err := testenv.StartCluster(t, name)
		if err != nil {
			t.Fatal(err)
		}
		m.InstallCRDs(t)
		m.CreateNamespaces(t, agentNS, "from-broker")
		members = append(members, m)
	}
	p1, p2, c := members[0], members[1], members[2]
	c.CreateNamespaces(t, "apps")
	node(t, p1, "n1", "8", "16Gi")
	node(t, p2, "n1", "4", "8Gi")
	ctx := t.Context()

	// Onboard (the broker's administrator) and register (each member).
	atBroker := map[sharingv1alpha1.ClusterID][]byte{}
	for _, id := range []sharingv1alpha1.ClusterID{"prov-1", "prov-2", "cons"} {
		kc, err := broker.Onboard(ctx, b.Config, id, "", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		atBroker[id] = kc
	}
	for _, reg := range []struct {
		c      *testenv.Cluster
		id     sharingv1alpha1.ClusterID
		role   sharingv1alpha1.PeerRole
		region string
	}{{p1, "prov-1", sharingv1alpha1.RoleProvider, "eu-west"}, {p2, "prov-2", sharingv1alpha1.RoleProvider, "us-east"}, {c, "cons", sharingv1alpha1.RoleConsumer, "eu-west"}} {
		var creds []byte
		if reg.role == sharingv1alpha1.RoleProvider {
			kc, _, err := broker.GrantBroker(ctx, reg.c.Config, "from-broker", "", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			creds = kc
		}
		if _, err := broker.Register(ctx, atBroker[reg.id], broker.Registration{ClusterID: reg.id, Role: reg.role, Region: reg.region, APIServer: "https://" + string(reg.id) + ".example", Credentials: creds}); err != nil {
			t.Fatalf("failed to register %s: %v", reg.id, err)
		}
	}
	cons := clientOf(t, atBroker["cons"])
	// A member claiming another's cluster ID is refused, and cannot write
	// into another member's namespace at all.
	impostor := &sharingv1alpha1.Peer{ObjectMeta: metav1.ObjectMeta{Name: "prov-1", Namespace: "member-cons"}, Spec: sharingv1alpha1.PeerSpec{
		ClusterID: "prov-1", Role: sharingv1alpha1.RoleProvider, APIServer: "https://prov-1.example", Namespace: "member-cons",
		CredentialsSecretRef: sharingv1alpha1.SecretReference{Name: "credentials"}, Identity: sharingv1alpha1.PeerIdentity{Username: "system:serviceaccount:member-cons:agent"}}}
	if err := cons.Create(ctx, impostor); err != nil {
		t.Fatal(err)
	}
	forged := &sharingv1alpha1.Advertisement{ObjectMeta: metav1.ObjectMeta{Name: "prov-1", Namespace: "member-prov-1"}, Spec: sharingv1alpha1.AdvertisementSpec{
		ClusterID: "prov-1", Consumer: "broker", Timestamp: metav1.Now(), TimeToLive: metav1.Duration{Duration: time.Hour}}}
	if err := cons.Create(ctx, forged); !apierrors.IsForbidden(err) {
		t.Errorf("writing into another member's namespace: got %v, want Forbidden", err)
	}

	opts := broker.Options{BrokerID: "broker", ConfirmTimeout: 20 * time.Second}
	start := func() *testenv.Manager {
		return env.StartManagerAs(t, "broker", func(mgr ctrl.Manager) error { return broker.Setup(mgr, opts, nil) })
	}
	mgr := start()
	began := time.Now()

	testenv.Eventually(t, 30*time.Second, "registrations decided", func() string {
		var list sharingv1alpha1.PeerList
		if err := b.Client.List(ctx, &list); err != nil {
			return err.Error()
		}
		var got []string
		for _, p := range list.Items {
			if c := meta.FindStatusCondition(p.Status.Conditions, sharingv1alpha1.PeerReady); c != nil {
				got = append(got, p.Namespace+"/"+p.Name+"="+c.Reason)
			}
		}
		sort.Strings(got)
		return cmp.Diff([]string{"member-cons/cons=Registered", "member-cons/prov-1=ClusterIDMismatch", "member-prov-1/prov-1=Registered", "member-prov-2/prov-2=Registered"}, got)
	})
	t.Logf("registrations decided %s after the broker started", time.Since(began).Round(time.Millisecond))
	began = time.Now()

	// Publish: each provider's agent advertises to the broker as to a
	// consumer; the broker lists it, and the provider reserves it for it.
	brokerPeer(t, p1, sharingv1alpha1.RoleConsumer, atBroker["prov-1"], &sharingv1alpha1.OutgoingPolicy{SharePercent: 50, Prices: eur("0.5")})
	brokerPeer(t, p2, sharingv1alpha1.RoleConsumer, atBroker["prov-2"], &sharingv1alpha1.OutgoingPolicy{SharePercent: 50, Prices: eur("0.3")})
	hold := func(o *agent.Options) { o.OfferHold = time.Minute }
	startAgent(t, p1, "prov-1", hold)
	startAgent(t, p2, "prov-2", hold)
	testenv.Eventually(t, 60*time.Second, "both advertisements listed and reserved for the broker", func() string {
		var list sharingv1alpha1.AdvertisementList
		if err := b.Client.List(ctx, &list); err != nil {
			return err.Error()
		}
		var got []string
		for _, a := range list.Items {
			got = append(got, a.Namespace+"/"+a.Name+"="+string(a.Status.Reason))
		}
		want := []string{"member-prov-1/prov-1=Listed", "member-prov-2/prov-2=Listed"}
		return cmp.Diff(want, got) + cmp.Diff([]string{"broker.advertisement.prov-1=Reserved"}, reservations(t, p1))
	})
	t.Logf("both advertisements listed %s after the agents started", time.Since(began).Round(time.Millisecond))

	// Query, as the consumer.
	t.Run("query", func(t *testing.T) {
		maxEUR := &sharingv1alpha1.Money{Amount: resource.MustParse("0.4"), Currency: "EUR", Period: sharingv1alpha1.PeriodHour}
		cases := []struct {
			name string
			spec sharingv1alpha1.CapacityQuerySpec
			want string
		}{
			{"cheapest first", sharingv1alpha1.CapacityQuerySpec{Requests: rl("1", "1Gi")}, "Matched: prov-2 2cpu 300m EUR x2, prov-1 4cpu 500m EUR x4"},
			{"by region", sharingv1alpha1.CapacityQuerySpec{Requests: rl("1", "1Gi"), Region: "eu-west"}, "Matched: prov-1 4cpu 500m EUR x4"},
			{"under a price", sharingv1alpha1.CapacityQuerySpec{Requests: rl("1", "1Gi"), MaxPrice: maxEUR}, "Matched: prov-2 2cpu 300m EUR x2"},
			{"a pod only the larger node runs", sharingv1alpha1.CapacityQuerySpec{Requests: rl("3", "1Gi")}, "Matched: prov-1 4cpu 1500m EUR x1"},
			{"a pod no node runs", sharingv1alpha1.CapacityQuerySpec{Requests: rl("6", "")}, "NoMatch: "},
			{"negative memory", sharingv1alpha1.CapacityQuerySpec{Requests: rl("1", "-1Gi")}, `Invalid: spec.requests[memory]: Invalid value: "-1Gi": must not be negative`},
		}
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				q := &sharingv1alpha1.CapacityQuery{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("q%d", i), Namespace: "member-cons"}, Spec: tc.spec}
				asked := time.Now()
				if err := cons.Create(ctx, q); err != nil {
					t.Fatal(err)
				}
				testenv.Eventually(t, 20*time.Second, "the answer", func() string {
					if err := cons.Get(ctx, client.ObjectKeyFromObject(q), q); err != nil {
						return err.Error()
					}
					return cmp.Diff(tc.want, answer(q))
				})
				t.Logf("answered within %s", time.Since(asked).Round(time.Millisecond))
			})
		}
		bad := &sharingv1alpha1.CapacityQuery{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "member-cons"}, Spec: sharingv1alpha1.CapacityQuerySpec{Requests: rl("", "")}}
		if err := cons.Create(ctx, bad); err == nil || !strings.Contains(err.Error(), "spec.requests") {
			t.Errorf("a query without requests: got %v, want an error naming spec.requests", err)
		}
	})

	// A broker-run auction: the consumer's agent hands its quote to the
	// broker; the broker is stopped once it forwarded it and restarted
	// after the deadline.
	brokerPeer(t, c, sharingv1alpha1.RoleProvider, atBroker["cons"], nil)
	startAgent(t, c, "cons", func(o *agent.Options) { o.AuctionWindow = 10 * time.Second })
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "web", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
	}}}}
	if err := c.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}
	if err := c.Client.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	var deadline time.Time
	testenv.Eventually(t, 30*time.Second, "the quote forwarded to both providers", func() string {
		var list sharingv1alpha1.QuoteList
		if err := b.Client.List(ctx, &list, client.InNamespace("member-cons")); err != nil || len(list.Items) != 1 {
			return fmt.Sprintf("quotes at the broker: %d, %v", len(list.Items), err)
		}
		deadline = list.Items[0].Spec.Deadline.Time
		return cmp.Diff([]int{1, 1}, []int{len(quotesIn(t, p1)), len(quotesIn(t, p2))})
	})
	mgr.Stop()
	time.Sleep(time.Until(deadline) + 500*time.Millisecond)
	start()
	restarted := time.Now()

	var local sharingv1alpha1.Quote
	testenv.Eventually(t, 60*time.Second, "the consumer learns the result", func() string {
		var list sharingv1alpha1.QuoteList
		if err := c.Client.List(ctx, &list, client.InNamespace(agentNS)); err != nil || len(list.Items) != 1 {
			return fmt.Sprintf("local quotes: %d, %v", len(list.Items), err)
		}
		local = list.Items[0]
		cond := meta.FindStatusCondition(local.Status.Conditions, sharingv1alpha1.QuoteAnswered)
		if cond == nil {
			return "not closed yet"
		}
		price := ""
		if local.Status.Price != nil {
			price = local.Status.Price.Amount.String() + " " + local.Status.Price.Currency
		}
		return cmp.Diff("True/Offered/prov-2/600m EUR", fmt.Sprintf("%s/%s/%s/%s", cond.Status, cond.Reason, local.Status.Provider, price))
	})
	t.Logf("the consumer learned the result %s after the broker restarted (%s after the deadline)", time.Since(restarted).Round(time.Millisecond), time.Since(deadline).Round(time.Millisecond))
	fwd := quotesIn(t, p2)[0]
	testenv.Eventually(t, 30*time.Second, "prov-2 reserves, prov-1 is declined, nothing twice", func() string {
		type state struct {
			Quotes, Acks   [2][]string
			Offers         []string
			P1, P2         []string
			ForwardedLabel string
		}
		var offers sharingv1alpha1.OfferList
		if err := b.Client.List(ctx, &offers); err != nil {
			return err.Error()
		}
		var os []string
		for _, o := range offers.Items {
			c := meta.FindStatusCondition(o.Status.Conditions, sharingv1alpha1.OfferSelected)
			if c != nil {
				os = append(os, o.Namespace+"/"+o.Name+"="+c.Reason)
			}
		}
		sort.Strings(os)
		got := state{
			Quotes: [2][]string{quotesIn(t, p1), quotesIn(t, p2)}, Acks: [2][]string{acks(t, p1), acks(t, p2)}, Offers: os,
			P1: offerReservations(t, p1), P2: offerReservations(t, p2),
		}
		var q sharingv1alpha1.Quote
		if err := p2.Client.Get(ctx, client.ObjectKey{Namespace: "from-broker", Name: fwd}, &q); err == nil {
			got.ForwardedLabel = q.Labels[sharingv1alpha1.LabelOnBehalfOf]
		}
		want := state{
			Quotes: [2][]string{{fwd}, {fwd}}, Acks: [2][]string{{fwd + "=Refused/Declined"}, {fwd + "=Confirmed/Reserved"}},
			// The winner's copy handed over to the consumer, under its quote's name.
			Offers: []string{"member-cons/" + local.Name + "=CheapestFit", "member-prov-1/" + fwd + "=Outbid", "member-prov-2/" + fwd + "=CheapestFit"},
			P1:     nil, P2: []string{"broker.offer." + fwd + "=Reserved"}, ForwardedLabel: "cons",
		}
		return cmp.Diff(want, got)
	})
	if !strings.HasPrefix(local.Status.Offer, "member-prov-2/") {
		t.Errorf("winning offer %q, want one in member-prov-2", local.Status.Offer)
	}
	// The copy is what the consumer may read: the winner as the provider
	// left it once it confirmed (expiresAt the reservation's), for the
	// consumer's own quote.
	var won, handed sharingv1alpha1.Offer
	if err := b.Client.Get(ctx, client.ObjectKey{Namespace: "member-prov-2", Name: fwd}, &won); err != nil {
		t.Fatal(err)
	}
	if err := cons.Get(ctx, client.ObjectKey{Namespace: "member-cons", Name: local.Name}, &handed); err != nil {
		t.Fatalf("the consumer cannot read the offer handed over to it: %v", err)
	}
	want := won.Spec
	want.Quote = local.Name
	if diff := cmp.Diff(want, handed.Spec); diff != "" {
		t.Errorf("offer handed over (-want +got):\n%s", diff)
	}
	if got := handed.Annotations[broker.AnnotationWonOffer]; got != "member-prov-2/"+fwd {
		t.Errorf("handed-over offer's %s = %q, want member-prov-2/%s", broker.AnnotationWonOffer, got, fwd)
	}

	// Release: the application no longer needs the capacity (its pod is
	// gone) and the auction is deleted; the consumer's agent writes the
	// Release where it may, its namespace at the broker, naming the offer
	// handed over; the broker forwards it into prov-2, which frees the
	// reservation a day before its expiry, and the answer comes back. One
	// that claims another consumer goes nowhere.
	expires := handed.Spec.ExpiresAt.Time
	if time.Until(expires) < time.Hour {
		t.Fatalf("the won offer expires at %s, want a reserved hold of a day", expires)
	}
	forgedRel := &sharingv1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: "forged", Namespace: "member-cons"}, Spec: sharingv1alpha1.ReleaseSpec{
		Consumer: "prov-1", Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: local.Name}}}
	if err := cons.Create(ctx, forgedRel); err != nil {
		t.Fatalf("the consumer cannot write a release at the broker: %v", err)
	}
	if err := c.Client.Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if err := c.Client.Delete(ctx, &local); err != nil {
		t.Fatal(err)
	}
	rel := &sharingv1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: agent.ReleaseName(&local), Namespace: "member-cons"}}
	released := time.Now()
	testenv.Eventually(t, 30*time.Second, "the release reaches prov-2, which frees the reservation and reports it", func() string {
		type state struct {
			Consumer, Forged, AtProvider string
			OnBehalfOf                   string
			P2                           []string
			Ended, AuctionGone           bool
		}
		var got state
		var q sharingv1alpha1.Quote
		got.AuctionGone = apierrors.IsNotFound(c.Client.Get(ctx, client.ObjectKeyFromObject(&local), &q)) && apierrors.IsNotFound(cons.Get(ctx, client.ObjectKey{Namespace: "member-cons", Name: local.Name}, &q))
		for _, r := range []*sharingv1alpha1.Release{rel, forgedRel} {
			if err := cons.Get(ctx, client.ObjectKeyFromObject(r), r); err != nil {
				return "release " + r.Name + ": " + err.Error()
			}
		}
		got.Consumer, got.Forged = releaseState(rel), releaseState(forgedRel)
		var there sharingv1alpha1.Release
		if err := p2.Client.Get(ctx, client.ObjectKey{Namespace: "from-broker", Name: rel.Name}, &there); err == nil {
			got.AtProvider, got.OnBehalfOf = releaseState(&there)+"/"+string(there.Spec.Consumer), there.Labels[sharingv1alpha1.LabelOnBehalfOf]
		}
		got.P2 = offerReservations(t, p2)
		if err := cons.Get(ctx, client.ObjectKeyFromObject(&handed), &handed); err != nil {
			return err.Error()
		}
		got.Ended = !handed.Spec.ExpiresAt.Time.After(time.Now())
		want := state{Consumer: "True/Freed", Forged: "False/ConsumerMismatch", AtProvider: "True/Freed/broker", OnBehalfOf: "cons", Ended: true, AuctionGone: true}
		return cmp.Diff(want, got)
	})
	t.Logf("released %s after the auction was deleted, %s before the reservation's expiry", time.Since(released).Round(time.Millisecond), time.Until(expires).Round(time.Minute))
	if rel.Status.ReleasedTime == nil || !rel.Status.ReleasedTime.Time.Before(expires.Add(-time.Hour)) {
		t.Errorf("releasedTime %v, want well before the expiry %s", rel.Status.ReleasedTime, expires)
	}
	if n := len(acks(t, p2)); n != 1 {
		t.Errorf("prov-2 has %d acknowledgements after the release, want 1", n)
	}
	if rel.Spec.Consumer != "cons" || rel.Spec.AppID != local.Spec.AppID {
		t.Errorf("release written by the consumer's agent: %+v, want consumer cons, appID %s", rel.Spec, local.Spec.AppID)
	}
}

// releaseState sums up a Release's status: its Released condition's
// status and reason.
func releaseState(r *sharingv1alpha1.Release) string {
	c := meta.FindStatusCondition(r.Status.Conditions, sharingv1alpha1.ReleaseDone)
	if c == nil {
		return "unanswered"
	}
	return string(c.Status) + "/" + c.Reason
}

// answer sums up a query's status: its reason and each match's provider,
// shape's cpu, price and pods per node.
func answer(q *sharingv1alpha1.CapacityQuery) string {
	c := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.CapacityQueryAnswered)
	if c == nil || c.ObservedGeneration != q.Generation {
		return "unanswered"
	}
	if c.Reason == sharingv1alpha1.CapacityQueryReasonInvalid {
		return c.Reason + ": " + c.Message
	}
	var ms []string
	for _, m := range q.Status.Matches {
		price := "free"
		if m.Price != nil {
			price = m.Price.Amount.String() + " " + m.Price.Currency
		}
		shape := strings.SplitN(m.Shape, "-", 2)[0]
		ms = append(ms, fmt.Sprintf("%s %s %s x%d", m.Provider, shape, price, m.PodsPerNode))
	}
	return c.Reason + ": " + strings.Join(ms, ", ")
}

func quotesIn(t *testing.T, c *testenv.Cluster) []string {
	var list sharingv1alpha1.QuoteList
	if err := c.Client.List(t.Context(), &list, client.InNamespace("from-broker")); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range list.Items {
		out = append(out, q.Name)
	}
	return out
}

func acks(t *testing.T, c *testenv.Cluster) []string {
	var list sharingv1alpha1.AcknowledgementList
	if err := c.Client.List(t.Context(), &list, client.InNamespace("from-broker")); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range list.Items {
		out = append(out, a.Name+"="+string(a.Status.Decision)+"/"+string(a.Status.Reason))
	}
	return out
}

func reservations(t *testing.T, c *testenv.Cluster) []string {
	var list sharingv1alpha1.ReservationList
	if err := c.Client.List(t.Context(), &list, client.InNamespace(agentNS)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range list.Items {
		out = append(out, r.Name+"="+string(r.Spec.State))
	}
	return out
}

func offerReservations(t *testing.T, c *testenv.Cluster) []string {
	var out []string
	for _, r := range reservations(t, c) {
		if strings.HasPrefix(r, "broker.offer.") {
			out = append(out, r)
		}
	}
	return out
}
