package agent_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestAdvertiseDecideReserve: provider prov-p (one node, 4 CPU) advertises
// to two consumers with its whole share each: cons-a is charged below its
// price ceiling and accepts, cons-b above it and refuses with the reason.
// The CPU advertised to both together, and reserved, never exceeds the
// node's 4 CPU; a restarted provider agent keeps the same reservations.
func TestAdvertiseDecideReserve(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 2})
	p, a, b := env.Management, env.Members[0], env.Members[1]
	a.InstallCRDs(t)
	b.InstallCRDs(t)
	p.CreateNamespaces(t, agentNS, "from-cons-a", "from-cons-b")
	a.CreateNamespaces(t, agentNS, "from-prov-p")
	b.CreateNamespaces(t, agentNS, "from-prov-p")
	node(t, p, "n1", "4", "8Gi")

	peer(t, p, a, "cons-a", sharingv1alpha1.RoleConsumer, "from-cons-a", "from-prov-p", &sharingv1alpha1.OutgoingPolicy{SharePercent: 100, Prices: eur("0.05")})
	peer(t, p, b, "cons-b", sharingv1alpha1.RoleConsumer, "from-cons-b", "from-prov-p", &sharingv1alpha1.OutgoingPolicy{SharePercent: 100, Prices: eur("0.5")})
	peer(t, a, p, "prov-p", sharingv1alpha1.RoleProvider, "from-prov-p", "from-cons-a", nil)
	peer(t, b, p, "prov-p", sharingv1alpha1.RoleProvider, "from-prov-p", "from-cons-b", nil)

	startAgent(t, a, "cons-a")
	startAgent(t, b, "cons-b")
	stopP := startAgent(t, p, "prov-p")

	// overPromised says how the invariant is broken, "" when it holds.
	overPromised := func() string {
		var cpu int64
		for _, c := range []*testenv.Cluster{a, b} {
			adv := &sharingv1alpha1.Advertisement{}
			if err := c.Client.Get(t.Context(), client.ObjectKey{Namespace: "from-prov-p", Name: "prov-p"}, adv); err == nil {
				for _, s := range adv.Spec.Availability {
					q := s.Resources[corev1.ResourceCPU]
					cpu += q.MilliValue() * int64(s.Count)
				}
			}
		}
		if cpu > 4000 {
			return fmt.Sprintf("advertised %dm CPU in all, the node has 4000m", cpu)
		}
		if r := reservedCPU(t, p); r > 4000 {
			return fmt.Sprintf("reserved %dm CPU in all, the node has 4000m", r)
		}
		return ""
	}
	decision := func(c *testenv.Cluster) (sharingv1alpha1.AdvertisementDecision, string) {
		adv := &sharingv1alpha1.Advertisement{}
		if err := c.Client.Get(t.Context(), client.ObjectKey{Namespace: "from-prov-p", Name: "prov-p"}, adv); err != nil {
			return "", err.Error()
		}
		return adv.Status.Decision, string(adv.Status.Reason)
	}

	testenv.Eventually(t, 90*time.Second, "cons-b refuses by price and cons-a accepts", func() string {
		if msg := overPromised(); msg != "" {
			t.Fatal(msg)
		}
		type got struct{ A, AReason, B, BReason string }
		da, ra := decision(a)
		db, rb := decision(b)
		want := got{"Accepted", "PolicyAccepted", "Refused", "PriceAboveCeiling"}
		return cmp.Diff(want, got{string(da), ra, string(db), rb})
	})
	testenv.Eventually(t, 30*time.Second, "cons-a's capacity is reserved", func() string {
		if msg := overPromised(); msg != "" {
			t.Fatal(msg)
		}
		return cmp.Diff([]string{"cons-a.advertisement.prov-p=Reserved"}, reservations(t, p))
	})
	testenv.Eventually(t, 30*time.Second, "cons-a's reservation is Held", func() string {
		res := &sharingv1alpha1.Reservation{}
		if err := p.Client.Get(t.Context(), client.ObjectKey{Namespace: agentNS, Name: "cons-a.advertisement.prov-p"}, res); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(res.Status.Conditions, sharingv1alpha1.ReservationHeld)
		if c == nil {
			return "no Held condition"
		}
		cpu := res.Status.Total[corev1.ResourceCPU]
		return cmp.Diff("True/Fits/4", string(c.Status)+"/"+c.Reason+"/"+cpu.String())
	})
	// The accepted advertisement became virtual nodes in cons-a, sized to
	// one provider node; the refused one made none in cons-b.
	testenv.Eventually(t, 30*time.Second, "virtual nodes follow the decisions", func() string {
		type got struct{ A, B []string }
		return cmp.Diff(got{A: []string{"prov-p cpu=4"}}, got{A: virtualNodes(t, a), B: virtualNodes(t, b)})
	})
	adv := &sharingv1alpha1.Advertisement{}
	if err := a.Client.Get(t.Context(), client.ObjectKey{Namespace: "from-prov-p", Name: "prov-p"}, adv); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(adv.Status.Conditions, sharingv1alpha1.AdvertisementAccepted); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Accepted condition = %+v, want True", c)
	}

	// The sender is who may write into the namespace, not who the message
	// claims to be.
	a.CreateNamespaces(t, "elsewhere")
	spoof := func(ns, name string, claims sharingv1alpha1.ClusterID) *sharingv1alpha1.Advertisement {
		adv := &sharingv1alpha1.Advertisement{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: sharingv1alpha1.AdvertisementSpec{
			ClusterID: claims, Consumer: "cons-a", Type: sharingv1alpha1.AdvertisementFull,
			Availability: []sharingv1alpha1.NodeShape{{Name: "big", Count: 1, Resources: map[corev1.ResourceName]resource.Quantity{
				corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("256Gi")}}},
			Timestamp: metav1.Now(), TimeToLive: metav1.Duration{Duration: 10 * time.Minute}}}
		if err := a.Client.Create(t.Context(), adv); err != nil {
			t.Fatal(err)
		}
		return adv
	}
	spoofs := []*sharingv1alpha1.Advertisement{spoof("from-prov-p", "bank", "bank"), spoof("elsewhere", "prov-p", "prov-p")}
	testenv.Eventually(t, 30*time.Second, "spoofed advertisements refused", func() string {
		var got []string
		for _, adv := range spoofs {
			if err := a.Client.Get(t.Context(), client.ObjectKeyFromObject(adv), adv); err != nil {
				return err.Error()
			}
			got = append(got, string(adv.Status.Decision)+"/"+string(adv.Status.Reason))
		}
		return cmp.Diff([]string{"Refused/ClusterIDMismatch", "Refused/UnknownPeer"}, got)
	})
	// A Peer that maps the namespace later makes its writer known: the
	// advertisement is decided again, and its claim is still not trusted.
	peer(t, a, p, "prov-x", sharingv1alpha1.RoleProvider, "elsewhere", "from-cons-a", nil)
	testenv.Eventually(t, 30*time.Second, "re-decided when its Peer appears", func() string {
		if err := a.Client.Get(t.Context(), client.ObjectKeyFromObject(spoofs[1]), spoofs[1]); err != nil {
			return err.Error()
		}
		return cmp.Diff("Refused/ClusterIDMismatch", string(spoofs[1].Status.Decision)+"/"+string(spoofs[1].Status.Reason))
	})

	// Each consumer's agent probes its provider with the Peer's credentials.
	testenv.Eventually(t, 30*time.Second, "cons-a's Peer for prov-p is Established", func() string {
		pr := &sharingv1alpha1.Peer{}
		if err := a.Client.Get(t.Context(), client.ObjectKey{Namespace: agentNS, Name: "prov-p"}, pr); err != nil {
			return err.Error()
		}
		return cmp.Diff([]any{sharingv1alpha1.PeerEstablished, true}, []any{pr.Status.Phase, pr.Status.Latency != nil && meta.IsStatusConditionTrue(pr.Status.Conditions, sharingv1alpha1.PeerReady)})
	})

	// Restart: the new agent rebuilds its ledger from the Reservations and
	// promises nothing twice.
	before := reservations(t, p)
	stopP()
	startAgent(t, p, "prov-p")
	for range 20 {
		if msg := overPromised(); msg != "" {
			t.Fatal(msg)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if diff := cmp.Diff(before, reservations(t, p)); diff != "" {
		t.Errorf("reservations after restart (-want +got):\n%s", diff)
	}
	if d, r := decision(a); d != sharingv1alpha1.DecisionAccepted {
		t.Errorf("cons-a's decision after restart = %s %s, want Accepted", d, r)
	}
}

func reservations(t *testing.T, c *testenv.Cluster) []string {
	t.Helper()
	var list sharingv1alpha1.ReservationList
	if err := c.Client.List(t.Context(), &list, client.InNamespace(agentNS)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range list.Items {
		out = append(out, r.Name+"="+string(r.Spec.State))
	}
	sort.Strings(out)
	return out
}

func reservedCPU(t *testing.T, c *testenv.Cluster) int64 {
	var list sharingv1alpha1.ReservationList
	if err := c.Client.List(t.Context(), &list, client.InNamespace(agentNS)); err != nil {
		t.Fatal(err)
	}
	var cpu int64
	for _, r := range list.Items {
		if r.Spec.ExpiresAt.Time.After(time.Now()) {
			for _, s := range r.Spec.Slices {
				q := s.Resources[corev1.ResourceCPU]
				cpu += q.MilliValue()
			}
		}
	}
	return cpu
}

// virtualNodes lists a cluster's virtual nodes as "provider cpu=N".
func virtualNodes(t *testing.T, c *testenv.Cluster) []string {
	t.Helper()
	var list corev1.NodeList
	if err := c.Client.List(t.Context(), &list, client.MatchingLabels{sharingv1alpha1.LabelVirtualNode: "true"}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range list.Items {
		q := n.Status.Allocatable[corev1.ResourceCPU]
		out = append(out, n.Labels[sharingv1alpha1.LabelProvider]+" cpu="+q.String())
	}
	sort.Strings(out)
	return out
}
