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

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func advertisement(decision sharingv1alpha1.AdvertisementDecision, accepted ...string) *sharingv1alpha1.Advertisement {
	return &sharingv1alpha1.Advertisement{
		ObjectMeta: metav1.ObjectMeta{Namespace: "peer-p1", Name: "adv"},
		Spec: sharingv1alpha1.AdvertisementSpec{
			ClusterID: "p1", Consumer: "c1", Type: sharingv1alpha1.AdvertisementFull, Region: "eu-west",
			Availability: []sharingv1alpha1.NodeShape{
				{Name: "small", Count: 3, Resources: map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}},
				{Name: "big", Count: 1, Resources: map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("20")}},
			},
			Prices:     []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse("0.031"), Currency: "EUR", Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}},
			Timestamp:  metav1.NewTime(t0),
			TimeToLive: metav1.Duration{Duration: 30 * time.Minute},
		},
		Status: sharingv1alpha1.AdvertisementStatus{Decision: decision, AcceptedShapes: accepted},
	}
}

func peer(phase sharingv1alpha1.PeerPhase) *sharingv1alpha1.Peer {
	return &sharingv1alpha1.Peer{
		ObjectMeta: metav1.ObjectMeta{Name: "p1"},
		Spec:       sharingv1alpha1.PeerSpec{ClusterID: "p1", Namespace: "peer-p1"},
		Status:     sharingv1alpha1.PeerStatus{Phase: phase},
	}
}

func existingNode(name string) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// planSummary is what a test checks of a plan.
type planSummary struct {
	Nodes   map[string]string // name -> "cpu/memory/pods"
	Drain   []string
	Ready   bool
	Reason  string
	Recheck time.Time
}

func summarize(p NodePlan) planSummary {
	s := planSummary{Drain: p.Drain, Ready: p.Ready, Reason: p.Reason, Recheck: p.RecheckAt}
	for _, n := range p.Nodes {
		if s.Nodes == nil {
			s.Nodes = map[string]string{}
		}
		a := n.Status.Allocatable
		s.Nodes[n.Name] = a.Cpu().String() + "/" + a.Memory().String() + "/" + a.Pods().String()
	}
	return s
}

func TestPlanNodes(t *testing.T) {
	all := map[string]string{
		"vn-p1-big-0": "8/32Gi/20", "vn-p1-small-0": "2/4Gi/110", "vn-p1-small-1": "2/4Gi/110", "vn-p1-small-2": "2/4Gi/110",
	}
	expiry := t0.Add(30 * time.Minute)
	deleted := advertisement(sharingv1alpha1.DecisionAccepted)
	deleted.DeletionTimestamp = &metav1.Time{Time: t0}
	tests := []struct {
		name     string
		adv      *sharingv1alpha1.Advertisement
		peer     *sharingv1alpha1.Peer
		existing []corev1.Node
		now      time.Time
		want     planSummary
	}{{
		name: "accepted: one node per slice, Ready",
		adv:  advertisement(sharingv1alpha1.DecisionAccepted), peer: peer(sharingv1alpha1.PeerEstablished), now: t0.Add(time.Minute),
		want: planSummary{Nodes: all, Ready: true, Reason: ReasonProviderReachable, Recheck: expiry},
	}, {
		name: "accepted shapes only; the other slice's node drains",
		adv:  advertisement(sharingv1alpha1.DecisionAccepted, "big"), peer: peer(sharingv1alpha1.PeerEstablished), now: t0,
		existing: []corev1.Node{existingNode("vn-p1-big-0"), existingNode("vn-p1-small-0")},
		want:     planSummary{Nodes: map[string]string{"vn-p1-big-0": "8/32Gi/20"}, Drain: []string{"vn-p1-small-0"}, Ready: true, Reason: ReasonProviderReachable, Recheck: expiry},
	}, {
		name: "peer unreachable: nodes kept NotReady",
		adv:  advertisement(sharingv1alpha1.DecisionAccepted), peer: peer(sharingv1alpha1.PeerUnreachable), now: t0,
		want: planSummary{Nodes: all, Reason: ReasonPeerUnreachable, Recheck: expiry},
	}, {
		name: "no peer: NotReady",
		adv:  advertisement(sharingv1alpha1.DecisionAccepted), now: t0,
		want: planSummary{Nodes: all, Reason: ReasonPeerNotFound, Recheck: expiry},
	}, {
		name: "expired: every node drains",
		adv:  advertisement(sharingv1alpha1.DecisionAccepted), peer: peer(sharingv1alpha1.PeerEstablished), now: expiry,
		existing: []corev1.Node{existingNode("vn-p1-small-0"), existingNode("vn-p1-big-0")},
		want:     planSummary{Drain: []string{"vn-p1-big-0", "vn-p1-small-0"}, Reason: ReasonExpired},
	}, {
		name: "refused: every node drains",
		adv:  advertisement(sharingv1alpha1.DecisionRefused), peer: peer(sharingv1alpha1.PeerEstablished), now: t0,
		existing: []corev1.Node{existingNode("vn-p1-small-0")},
		want:     planSummary{Drain: []string{"vn-p1-small-0"}, Reason: ReasonNotAccepted},
	}, {
		name: "pending: no node",
		adv:  advertisement(sharingv1alpha1.DecisionPending), peer: peer(sharingv1alpha1.PeerEstablished), now: t0,
		want: planSummary{Reason: ReasonNotAccepted},
	}, {
		name: "deleted (gone): every node drains",
		peer: peer(sharingv1alpha1.PeerEstablished), now: t0,
		existing: []corev1.Node{existingNode("vn-p1-small-0")},
		want:     planSummary{Drain: []string{"vn-p1-small-0"}, Reason: ReasonNotAccepted},
	}, {
		name: "being deleted: every node drains",
		adv:  deleted, peer: peer(sharingv1alpha1.PeerEstablished), now: t0,
		existing: []corev1.Node{existingNode("vn-p1-small-0")},
		want:     planSummary{Drain: []string{"vn-p1-small-0"}, Reason: ReasonNotAccepted},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{ConsumerID: "c1", ProviderID: "p1"}
			if err := opts.defaults(); err != nil {
				t.Fatal(err)
			}
			got, err := PlanNodes(tc.adv, tc.peer, tc.existing, tc.now, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(got)); diff != "" {
				t.Errorf("PlanNodes() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanNodesLabelsAndTaint(t *testing.T) {
	opts := Options{ConsumerID: "c1", ProviderID: "p1"}
	if err := opts.defaults(); err != nil {
		t.Fatal(err)
	}
	plan, err := PlanNodes(advertisement(sharingv1alpha1.DecisionAccepted, "big"), peer(sharingv1alpha1.PeerEstablished), nil, t0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Nodes) != 1 {
		t.Fatalf("PlanNodes() made %d nodes, want 1", len(plan.Nodes))
	}
	n := plan.Nodes[0]
	want := map[string]string{
		sharingv1alpha1.LabelVirtualNode: "true", sharingv1alpha1.LabelProvider: "p1", sharingv1alpha1.LabelAdvertisement: "adv",
		sharingv1alpha1.LabelShape: "big", corev1.LabelTopologyRegion: "eu-west", sharingv1alpha1.LabelCurrency: "EUR",
		sharingv1alpha1.LabelPricePrefix + "cpu": "0.031", "type": "virtual-node", corev1.LabelHostname: "vn-p1-big-0", corev1.LabelOSStable: "linux",
	}
	if diff := cmp.Diff(want, n.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	wantTaints := []corev1.Taint{{Key: sharingv1alpha1.TaintVirtualNode, Value: "p1", Effect: corev1.TaintEffectNoSchedule}}
	if diff := cmp.Diff(wantTaints, n.Spec.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{AnnotationAdvertisementNamespace: "peer-p1"}, n.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}

// TestPlanNodesKubeletEndpoint: with a kubelet endpoint, every node
// advertises it as its InternalIP and kubelet port, where the API server
// sends logs and exec; without one, nodes advertise no address.
func TestPlanNodesKubeletEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name          string
		kubelet       KubeletEndpoint
		wantAddresses []corev1.NodeAddress
		wantPort      int32
	}{
		{"served", KubeletEndpoint{Address: "10.0.3.7", Port: 10250},
			[]corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.3.7"}}, 10250},
		{"not served", KubeletEndpoint{}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{ConsumerID: "c1", ProviderID: "p1", Kubelet: tc.kubelet}
			if err := opts.defaults(); err != nil {
				t.Fatal(err)
			}
			plan, err := PlanNodes(advertisement(sharingv1alpha1.DecisionAccepted, "big"), peer(sharingv1alpha1.PeerEstablished), nil, t0, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range plan.Nodes {
				if diff := cmp.Diff(tc.wantAddresses, n.Status.Addresses); diff != "" {
					t.Errorf("addresses of %s (-want +got):\n%s", n.Name, diff)
				}
				if diff := cmp.Diff(tc.wantPort, n.Status.DaemonEndpoints.KubeletEndpoint.Port); diff != "" {
					t.Errorf("kubelet port of %s (-want +got):\n%s", n.Name, diff)
				}
			}
		})
	}
}
