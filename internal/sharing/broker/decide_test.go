package broker

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func registration(name string, id sharingv1alpha1.ClusterID, ns, user string) *sharingv1alpha1.Peer {
	return &sharingv1alpha1.Peer{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: sharingv1alpha1.PeerSpec{
		ClusterID: id, Role: sharingv1alpha1.RoleProvider, APIServer: "https://p.example", Namespace: ns,
		CredentialsSecretRef: sharingv1alpha1.SecretReference{Name: "credentials"}, Identity: sharingv1alpha1.PeerIdentity{Username: user}}}
}

func TestAdmit(t *testing.T) {
	m := &member{Namespace: "member-p", ClusterID: "p", Identity: "system:serviceaccount:member-p:agent"}
	user := m.Identity
	cases := []struct {
		name string
		peer *sharingv1alpha1.Peer
		want string
	}{
		{"the member itself", registration("p", "p", "member-p", user), "Registered"},
		{"claims another cluster", registration("q", "q", "member-p", user), `ClusterIDMismatch: spec.clusterID: "q" is claimed, but namespace "member-p" belongs to member "p"`},
		{"named after another", registration("other", "p", "member-p", user), `NotTheMember: metadata.name: "other"`},
		{"another namespace", func() *sharingv1alpha1.Peer {
			p := registration("p", "p", "member-p", user)
			p.Spec.Namespace = "member-q"
			return p
		}(), `Invalid: spec.namespace: "member-q"`},
		{"another identity", registration("p", "p", "member-p", "system:serviceaccount:member-q:agent"), `IdentityMismatch: spec.identity.username`},
		{"a broker", func() *sharingv1alpha1.Peer {
			p := registration("p", "p", "member-p", user)
			p.Spec.Broker = true
			return p
		}(), "Invalid: spec.broker"},
		{"invalid", func() *sharingv1alpha1.Peer {
			p := registration("p", "p", "member-p", user)
			p.Spec.Role = "Lender"
			return p
		}(), "Invalid: spec.role"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reason, msg, ok := admit(tc.peer, m)
			got := reason + ": " + msg
			if !strings.HasPrefix(got, tc.want) || ok != (reason == ReasonRegistered) {
				t.Errorf("admit = %q (ok %v), want it to start with %q", got, ok, tc.want)
			}
		})
	}
}

func adv(ns, provider, region string, price string, shapes ...sharingv1alpha1.NodeShape) listing {
	a := &sharingv1alpha1.Advertisement{ObjectMeta: metav1.ObjectMeta{Name: provider, Namespace: ns}, Spec: sharingv1alpha1.AdvertisementSpec{
		ClusterID: sharingv1alpha1.ClusterID(provider), Consumer: "broker", Type: sharingv1alpha1.AdvertisementFull, Region: region,
		Availability: shapes, Timestamp: metav1.NewTime(t0), TimeToLive: metav1.Duration{Duration: time.Hour}}}
	var prices []sharingv1alpha1.Price
	if price != "" {
		prices = []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse(price), Currency: "EUR", Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}}
	}
	return listing{Advertisement: a, Prices: prices}
}

// inUSD prices l in US dollars.
func inUSD(l listing) listing {
	for i := range l.Prices {
		l.Prices[i].Currency = "USD"
	}
	return l
}

func shape(name, cpu, mem string, count int32, labels map[string]string) sharingv1alpha1.NodeShape {
	return sharingv1alpha1.NodeShape{Name: name, Count: count, Labels: labels,
		Resources: map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
}

func req(cpu, mem string) map[corev1.ResourceName]resource.Quantity {
	return map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
}

// TestMatch: a query matches a shape only when one node of it runs the
// whole pod; many small nodes never add up to a large one.
func TestMatch(t *testing.T) {
	arm := map[string]string{corev1.LabelArchStable: "arm64"}
	table := []listing{
		adv("member-a", "a", "eu-west", "0.5", shape("big", "8", "32Gi", 1, nil)),
		adv("member-b", "b", "us-east", "0.2", shape("small", "2", "4Gi", 3750, nil), shape("arm", "4", "8Gi", 2, arm)),
		adv("member-c", "c", "eu-west", "", shape("free", "1", "2Gi", 5, nil)),
		inUSD(adv("member-d", "d", "us-east", "0.1", shape("cheap", "2", "4Gi", 1, nil))),
	}
	day := func(a string) *sharingv1alpha1.Money {
		return &sharingv1alpha1.Money{Amount: resource.MustParse(a), Currency: "EUR", Period: sharingv1alpha1.PeriodDay}
	}
	cases := []struct {
		name string
		q    sharingv1alpha1.CapacityQuerySpec
		want []string
	}{
		// USD is never compared with EUR: by currency, then cheapest.
		{"free first, then cheapest in each currency", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "1Gi")},
			[]string{"c/free free x1", "b/arm 200m x4", "b/small 200m x2", "a/big 500m x8", "d/cheap 100m USD x2"}},
		{"no sum of small nodes runs a large pod", sharingv1alpha1.CapacityQuerySpec{Requests: req("6", "8Gi")}, []string{"a/big 3 x1"}},
		{"region", sharingv1alpha1.CapacityQuerySpec{Requests: req("2", "1Gi"), Region: "us-east"}, []string{"b/arm 400m x2", "b/small 400m x1", "d/cheap 200m USD x1"}},
		{"node selector", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "1Gi"), NodeSelector: arm}, []string{"b/arm 200m x4"}},
		{"price per day", sharingv1alpha1.CapacityQuerySpec{Requests: req("2", "1Gi"), MaxPrice: day("9.6")}, []string{"b/arm 400m x2", "b/small 400m x1"}},
		{"another currency", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "1Gi"), MaxPrice: &sharingv1alpha1.Money{Amount: resource.MustParse("100"), Currency: "USD"}}, []string{"c/free free x1", "d/cheap 100m USD x2"}},
		{"limit", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "1Gi"), Limit: 1}, []string{"c/free free x1"}},
		{"nothing", sharingv1alpha1.CapacityQuerySpec{Requests: req("64", "1Gi")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, m := range match(&tc.q, table) {
				price := "free"
				if m.Price != nil {
					price = m.Price.Amount.String()
					if m.Price.Currency != "EUR" {
						price += " " + m.Price.Currency
					}
				}
				got = append(got, string(m.Provider)+"/"+m.Shape+" "+price+" x"+itoa(m.PodsPerNode))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("match (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int64) string { return resource.NewQuantity(n, resource.DecimalSI).String() }

func TestValidateQuery(t *testing.T) {
	cases := []struct {
		name string
		q    sharingv1alpha1.CapacityQuerySpec
		want string
	}{
		{"valid", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "1Gi")}, ""},
		{"no cpu or memory", sharingv1alpha1.CapacityQuerySpec{Requests: map[corev1.ResourceName]resource.Quantity{"nvidia.com/gpu": resource.MustParse("1")}}, "spec.requests: Required value"},
		{"negative", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "-1Gi")}, `spec.requests[memory]: Invalid value: "-1Gi"`},
		{"region", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "1Gi"), Region: "EU West"}, `spec.region: Invalid value: "EU West"`},
		{"currency", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "1Gi"), MaxPrice: &sharingv1alpha1.Money{Amount: resource.MustParse("1"), Currency: "euro"}}, `spec.maxPrice.currency: Invalid value: "euro"`},
		{"period", sharingv1alpha1.CapacityQuerySpec{Requests: req("1", "1Gi"), MaxPrice: &sharingv1alpha1.Money{Amount: resource.MustParse("1"), Currency: "EUR", Period: "Week"}}, `spec.maxPrice.period: Unsupported value: "Week"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if errs := validateQuery(&tc.q); len(errs) > 0 {
				got = errs.ToAggregate().Error()
			}
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Errorf("validateQuery = %q, want it to start with %q", got, tc.want)
			}
		})
	}
}

func TestForwardedName(t *testing.T) {
	q := &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: "cons.apps.web.1a2b3c4d", UID: "5f0c2e1a-7b9d-4c1e-8f2a-0d3b6e9c1a2b"}}
	other := &sharingv1alpha1.Quote{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "00000000-0000-0000-0000-000000000001"}}
	got := []string{forwardedName("cons", q), forwardedName("cons", other), forwardedName("evil", q)}
	want := []string{"cons.apps.web.1a2b3c4d.5f0c2e1a", "cons.web.00000000", "evil.cons.apps.web.1a2b3c4d.5f0c2e1a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("forwardedName (-want +got):\n%s", diff)
	}
}
