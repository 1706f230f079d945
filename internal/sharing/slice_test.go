package sharing_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// TestSliceNeverABlackHole: a provider with many small nodes advertising a
// large total never yields a virtual node that accepts a pod none of its
// nodes can run (Liqo #2712: one virtual node fronting 7,500 CPUs).
func TestSliceNeverABlackHole(t *testing.T) {
	tests := []struct {
		name      string
		nodes     []sharing.NodeSpare
		maxNodes  int
		pods      []corev1.ResourceList // each must fit no virtual node
		fitting   corev1.ResourceList   // must fit some virtual node
		wantNodes int
		wantDrop  int32
	}{{
		name:      "3,750 two-CPU nodes: 7,500 CPUs in total, no pod over 2 CPUs accepted",
		nodes:     manySpares(3750, "2", "8Gi"),
		maxNodes:  100,
		pods:      []corev1.ResourceList{rl("2100m", "1Gi"), rl("4", "4Gi"), rl("7500", "1Gi")},
		fitting:   rl("2", "8Gi"),
		wantNodes: 100,
		wantDrop:  3650,
	}, {
		name:      "mixed shapes: the largest pod accepted is the largest node's",
		nodes:     append(manySpares(20, "1", "2Gi"), spares([3]string{"big", "16", "64Gi"}, [3]string{"mid", "4", "32Gi"})...),
		maxNodes:  100,
		pods:      []corev1.ResourceList{rl("17", "1Gi"), rl("16", "65Gi"), rl("1100m", "65Gi")},
		fitting:   rl("16", "64Gi"),
		wantNodes: 22,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := sharing.NewLedger().Advertise(tc.nodes, "consumer-a", "adv", policy(100), t0.Time, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			adv := &sharingv1alpha1.Advertisement{
				ObjectMeta: metav1.ObjectMeta{Name: "provider-a", Namespace: "peer-provider-a"},
				Spec: sharingv1alpha1.AdvertisementSpec{ClusterID: "provider-a", Consumer: "consumer-a", Availability: plan.Availability,
					Timestamp: t0, TimeToLive: metav1.Duration{Duration: time.Hour}},
			}
			res, err := sharing.Slice(adv, nil, sharing.SliceOptions{MaxNodes: tc.maxNodes})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Nodes) != tc.wantNodes || res.Dropped != tc.wantDrop {
				t.Errorf("got %d virtual nodes and %d dropped, want %d and %d", len(res.Nodes), res.Dropped, tc.wantNodes, tc.wantDrop)
			}
			for _, vn := range res.Nodes {
				// Every virtual node is no larger than one provider node's spare.
				if !anyFits(vn.Allocatable, tc.nodes) {
					t.Errorf("virtual node %s has %v, more than any provider node spares", vn.Name, vn.Allocatable)
				}
				for _, p := range tc.pods {
					if sharing.Fits(p, vn.Allocatable) {
						t.Errorf("virtual node %s (%v) accepts a pod of %v that no provider node can run", vn.Name, vn.Allocatable, p)
					}
				}
			}
			var fits bool
			for _, vn := range res.Nodes {
				fits = fits || sharing.Fits(tc.fitting, vn.Allocatable)
			}
			if !fits {
				t.Errorf("no virtual node accepts %v, which the largest provider node can run", tc.fitting)
			}
		})
	}
}

func TestSliceLabelsAndAcceptedShapes(t *testing.T) {
	adv := validAdvertisement()
	adv.Name, adv.Namespace = "provider-a", "peer-provider-a"
	res, err := sharing.Slice(adv, []string{"4cpu-16gi"}, sharing.SliceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range res.Nodes {
		got = append(got, n.Name)
	}
	if diff := cmp.Diff([]string{"vn-provider-a-4cpu-16gi-0", "vn-provider-a-4cpu-16gi-1", "vn-provider-a-4cpu-16gi-2"}, got); diff != "" {
		t.Errorf("virtual nodes (-want +got):\n%s", diff)
	}
	wantLabels := map[string]string{
		"kubernetes.io/arch": "amd64", "type": "virtual-node", "topology.kubernetes.io/region": "eu-west-3",
		sharingv1alpha1.LabelVirtualNode: "true", sharingv1alpha1.LabelProvider: "provider-a", sharingv1alpha1.LabelAdvertisement: "provider-a",
		sharingv1alpha1.LabelShape: "4cpu-16gi", sharingv1alpha1.LabelCurrency: "EUR",
		sharingv1alpha1.LabelPricePrefix + "cpu": "0.031", sharingv1alpha1.LabelPricePrefix + "memory": "0.004",
	}
	if diff := cmp.Diff(wantLabels, res.Nodes[0].Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	wantTaints := []corev1.Taint{{Key: sharingv1alpha1.TaintVirtualNode, Value: "provider-a", Effect: corev1.TaintEffectNoSchedule}}
	if diff := cmp.Diff(wantTaints, res.Nodes[0].Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}

	bad := adv.DeepCopy()
	bad.Spec.Availability[0].Count = 0
	if _, err := sharing.Slice(bad, nil, sharing.SliceOptions{}); err == nil {
		t.Errorf("Slice accepted an advertisement with a shape of count 0")
	}
}

func manySpares(n int, cpu, mem string) []sharing.NodeSpare {
	out := make([]sharing.NodeSpare, n)
	for i := range out {
		out[i] = sharing.NodeSpare{Name: fmt.Sprintf("small-%04d", i), Free: rl(cpu, mem)}
	}
	return out
}

func anyFits(alloc corev1.ResourceList, nodes []sharing.NodeSpare) bool {
	for _, n := range nodes {
		if sharing.Fits(alloc, n.Free) {
			return true
		}
	}
	return false
}

func TestExpired(t *testing.T) {
	spec := validAdvertisement().Spec // 30m from t0
	tests := []struct {
		name string
		now  time.Time
		want bool
	}{
		{name: "within the time-to-live", now: t0.Add(29 * time.Minute), want: false},
		{name: "at the end of the time-to-live", now: t0.Add(30 * time.Minute), want: true},
		{name: "after it", now: t0.Add(31 * time.Minute), want: true},
		{name: "timestamp within the allowed clock skew", now: t0.Add(-time.Second), want: false},
		{name: "timestamp too far in the future", now: t0.Add(-time.Hour), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sharing.Expired(&spec, tc.now, 5*time.Second); got != tc.want {
				t.Errorf("Expired at %s = %v, want %v", tc.now.Format(time.RFC3339), got, tc.want)
			}
		})
	}
}
