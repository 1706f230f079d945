package agent_test

import (
	"strings"
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

// TestVirtualNodesOfLaterPeersAndWonAuctions: consumer home's agent starts
// with no Peer. Its provider Peers are created afterwards and served
// without a restart: prov-1 (0.05 EUR per CPU-hour, accepted) gets virtual
// nodes from its advertisement. A pod of 3 CPU fits none of them (prov-1
// spares 2 CPU per node for home) and starts an auction; prov-2 (refused
// by price, but 4 CPU to spare) wins it, and the won offer becomes one
// virtual node of exactly the pod's requests, kept until the offer is
// released. Deleting prov-1's Peer deletes its virtual nodes.
func TestVirtualNodesOfLaterPeersAndWonAuctions(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 2})
	home, p1, p2 := env.Management, env.Members[0], env.Members[1]
	p1.InstallCRDs(t)
	p2.InstallCRDs(t)
	home.CreateNamespaces(t, agentNS, "from-prov-1", "from-prov-2", "apps")
	p1.CreateNamespaces(t, agentNS, "from-home")
	p2.CreateNamespaces(t, agentNS, "from-home")
	node(t, p1, "n1", "4", "8Gi")
	node(t, p2, "n1", "8", "16Gi")
	startAgent(t, home, "home", func(o *agent.Options) { o.AuctionWindow = 2 * time.Second })

	peer(t, home, p1, "prov-1", sharingv1alpha1.RoleProvider, "from-prov-1", "from-home", nil)
	peer(t, home, p2, "prov-2", sharingv1alpha1.RoleProvider, "from-prov-2", "from-home", nil)
	peer(t, p1, home, "home", sharingv1alpha1.RoleConsumer, "from-home", "from-prov-1", &sharingv1alpha1.OutgoingPolicy{SharePercent: 50, Prices: eur("0.05")})
	peer(t, p2, home, "home", sharingv1alpha1.RoleConsumer, "from-home", "from-prov-2", &sharingv1alpha1.OutgoingPolicy{SharePercent: 50, Prices: eur("0.5")})
	startAgent(t, p1, "prov-1")
	startAgent(t, p2, "prov-2")

	virtualNodes := func() map[string]string {
		var list corev1.NodeList
		if err := home.Client.List(t.Context(), &list, client.MatchingLabels{sharingv1alpha1.LabelVirtualNode: "true"}); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, n := range list.Items {
			ready := "NotReady"
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready = "Ready"
				}
			}
			a := n.Status.Allocatable
			name := n.Labels[sharingv1alpha1.LabelProvider] + " advertised"
			if n.Labels[sharingv1alpha1.LabelShape] == "offer" {
				name = n.Labels[sharingv1alpha1.LabelProvider] + " offer"
			}
			got[name] += a.Cpu().String() + "/" + a.Memory().String() + "/" + a.Pods().String() + "/" + ready
		}
		return got
	}
	// prov-1 spares half of its node for home: 2 CPU, 4Gi, 55 pod slots
	// rounded down to 50.
	advNode := map[string]string{"prov-1 advertised": "2/4Gi/50/Ready"}
	testenv.Eventually(t, 60*time.Second, "prov-1's Peer, created after the agent started, is served", func() string {
		return cmp.Diff(advNode, virtualNodes())
	})

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "apps"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "big", Image: "nginx", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
	}}}}
	if err := home.Client.Create(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}
	if err := home.Client.Status().Update(t.Context(), pod); err != nil {
		t.Fatal(err)
	}

	var won string
	testenv.Eventually(t, 60*time.Second, "prov-2 wins the auction", func() string {
		var list sharingv1alpha1.QuoteList
		if err := home.Client.List(t.Context(), &list, client.InNamespace(agentNS)); err != nil || len(list.Items) != 1 {
			return "no auction yet"
		}
		c := meta.FindStatusCondition(list.Items[0].Status.Conditions, sharingv1alpha1.QuoteAnswered)
		if c == nil {
			return "not closed yet"
		}
		won = list.Items[0].Status.Offer
		return cmp.Diff("True/Offered/from-prov-2", string(c.Status)+"/"+c.Reason+"/"+strings.Split(won, "/")[0])
	})
	offerName := strings.Split(won, "/")[1]
	withOffer := map[string]string{"prov-1 advertised": "2/4Gi/50/Ready", "prov-2 offer": "3/1Gi/1/Ready"}
	testenv.Eventually(t, 60*time.Second, "the won offer becomes a virtual node of the pod's requests", func() string {
		return cmp.Diff(withOffer, virtualNodes())
	})
	offer := &sharingv1alpha1.Offer{}
	if err := home.Client.Get(t.Context(), client.ObjectKey{Namespace: "from-prov-2", Name: offerName}, offer); err != nil {
		t.Fatal(err)
	}
	if left := time.Until(offer.Spec.ExpiresAt.Time); left < time.Hour {
		t.Errorf("confirmed offer expires in %s; want the reservation's expiry (--reserved-hold, 24h)", left.Round(time.Second))
	}

	rel := &sharingv1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: "done", Namespace: "from-home"}, Spec: sharingv1alpha1.ReleaseSpec{
		Consumer: "home", Source: sharingv1alpha1.SourceReference{Kind: sharingv1alpha1.SourceOffer, Name: offerName}}}
	if err := p2.Client.Create(t.Context(), rel); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 60*time.Second, "the released offer's virtual node is deleted", func() string {
		return cmp.Diff(advNode, virtualNodes())
	})

	if err := home.Client.Delete(t.Context(), &sharingv1alpha1.Peer{ObjectMeta: metav1.ObjectMeta{Namespace: agentNS, Name: "prov-1"}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 60*time.Second, "the deleted Peer's virtual nodes are deleted", func() string {
		return cmp.Diff(map[string]string{}, virtualNodes())
	})
}
