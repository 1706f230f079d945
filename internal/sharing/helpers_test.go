package sharing_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

func node(name, cpu, mem string, pods int64, labels map[string]string) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	n.Status.Allocatable = rl(cpu, mem)
	n.Status.Allocatable[corev1.ResourcePods] = *resourceInt(pods)
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	return n
}

func pod(name, nodeName, cpu, mem string, labels map[string]string) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{
			Name: "c", Resources: corev1.ResourceRequirements{Requests: rl(cpu, mem)},
		}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

type resourceQ = resource.Quantity

func resourceInt(n int64) *resource.Quantity { v := q(fmt.Sprint(n)); return &v }

// spares builds NodeSpares directly: name, free cpu and memory.
func spares(specs ...[3]string) []sharing.NodeSpare {
	var out []sharing.NodeSpare
	for _, s := range specs {
		out = append(out, sharing.NodeSpare{Name: s[0], Labels: map[string]string{}, Free: rl(s[1], s[2])})
	}
	return out
}

// sumHeld sums, per node, the slices of every hold in l that is live at
// the time given.
func sumHeld(l *sharing.Ledger) map[string]corev1.ResourceList {
	out := map[string]corev1.ResourceList{}
	for _, h := range l.Holds() {
		for _, s := range h.Slices {
			if out[s.Node] == nil {
				out[s.Node] = corev1.ResourceList{}
			}
			for k, v := range s.Resources {
				x := out[s.Node][k]
				x.Add(v)
				out[s.Node][k] = x
			}
		}
	}
	return out
}

var _ = sharingv1alpha1.GroupVersion
