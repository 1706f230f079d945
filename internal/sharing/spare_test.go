package sharing_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

var cmpQuantity = cmp.Comparer(func(a, b resourceQ) bool { return a.Cmp(b) == 0 })

func TestSpare(t *testing.T) {
	amd := map[string]string{corev1.LabelArchStable: "amd64", "other": "x"}
	notReady := node("not-ready", "8", "16Gi", 110, nil)
	notReady.Status.Conditions[0].Status = corev1.ConditionFalse
	cordoned := node("cordoned", "8", "16Gi", 110, nil)
	cordoned.Spec.Unschedulable = true
	done := pod("done", "a", "4", "4Gi", nil)
	done.Status.Phase = corev1.PodSucceeded

	tests := []struct {
		name  string
		nodes []corev1.Node
		pods  []corev1.Pod
		want  []sharing.NodeSpare
	}{{
		name:  "allocatable minus the requests of the node's own pods, finished pods ignored",
		nodes: []corev1.Node{node("a", "8", "16Gi", 110, amd)},
		pods:  []corev1.Pod{pod("p1", "a", "1", "2Gi", nil), pod("p2", "a", "500m", "1Gi", nil), done, pod("elsewhere", "b", "1", "1Gi", nil)},
		want: []sharing.NodeSpare{{Name: "a", Labels: map[string]string{corev1.LabelArchStable: "amd64"},
			Free:   corev1.ResourceList{corev1.ResourceCPU: q("6500m"), corev1.ResourceMemory: q("13Gi"), corev1.ResourcePods: q("108")},
			UsedBy: map[sharingv1alpha1.ClusterID]corev1.ResourceList{}}},
	}, {
		name:  "twins count toward their consumer, not the node's own load",
		nodes: []corev1.Node{node("a", "8", "16Gi", 110, nil)},
		pods:  []corev1.Pod{pod("own", "a", "1", "1Gi", nil), pod("twin", "a", "2", "4Gi", map[string]string{sharingv1alpha1.LabelConsumer: "consumer-a"})},
		want: []sharing.NodeSpare{{Name: "a", Labels: map[string]string{},
			Free: corev1.ResourceList{corev1.ResourceCPU: q("7"), corev1.ResourceMemory: q("15Gi"), corev1.ResourcePods: q("109")},
			UsedBy: map[sharingv1alpha1.ClusterID]corev1.ResourceList{
				"consumer-a": {corev1.ResourceCPU: q("2"), corev1.ResourceMemory: q("4Gi"), corev1.ResourcePods: q("1")},
			}}},
	}, {
		name:  "nodes not Ready, cordoned or virtual are not lent",
		nodes: []corev1.Node{notReady, cordoned, node("virtual", "100", "1Ti", 110, map[string]string{sharingv1alpha1.LabelVirtualNode: "true"}), node("b", "2", "4Gi", 10, nil)},
		want: []sharing.NodeSpare{{Name: "b", Labels: map[string]string{},
			Free:   corev1.ResourceList{corev1.ResourceCPU: q("2"), corev1.ResourceMemory: q("4Gi"), corev1.ResourcePods: q("10")},
			UsedBy: map[sharingv1alpha1.ClusterID]corev1.ResourceList{}}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sharing.Spare(tc.nodes, tc.pods)
			if diff := cmp.Diff(tc.want, got, cmpQuantity); diff != "" {
				t.Errorf("Spare (-want +got):\n%s", diff)
			}
		})
	}
}
