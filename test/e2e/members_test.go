package e2e_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// freePerNode returns, per member and node, the CPU (millicores) not yet
// requested by the pods bound to it.
func (w *world) freePerNode(t *testing.T) map[string]map[string]int64 {
	t.Helper()
	out := map[string]map[string]int64{}
	for name, c := range w.members {
		var nodes corev1.NodeList
		if err := c.List(t.Context(), &nodes); err != nil {
			t.Fatal(err)
		}
		free := map[string]int64{}
		for _, n := range nodes.Items {
			free[n.Name] = n.Status.Allocatable.Cpu().MilliValue()
		}
		for _, p := range boundPods(t, c) {
			for _, ctr := range p.Spec.Containers {
				free[p.Spec.NodeName] -= ctr.Resources.Requests.Cpu().MilliValue()
			}
		}
		out[name] = free
	}
	return out
}

// requested is "used/allocatable" CPU of a member.
func (w *world) requested(t *testing.T, member string) string {
	t.Helper()
	c := w.members[member]
	var nodes corev1.NodeList
	if err := c.List(t.Context(), &nodes); err != nil {
		t.Fatal(err)
	}
	var alloc, used int64
	for _, n := range nodes.Items {
		alloc += n.Status.Allocatable.Cpu().MilliValue()
	}
	for _, p := range boundPods(t, c) {
		for _, ctr := range p.Spec.Containers {
			used += ctr.Resources.Requests.Cpu().MilliValue()
		}
	}
	return fmt.Sprintf("%.2f/%.0f", float64(used)/1000, float64(alloc)/1000)
}

func boundPods(t *testing.T, c client.Client) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	if err := c.List(t.Context(), &pods); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out = append(out, p)
		}
	}
	return out
}

// pendingPods lists the pods no member could schedule, as member/namespace/name.
func (w *world) pendingPods(t *testing.T) []string {
	t.Helper()
	var out []string
	for name, c := range w.members {
		var pods corev1.PodList
		if err := c.List(t.Context(), &pods); err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending {
				out = append(out, name+"/"+p.Namespace+"/"+p.Name)
			}
		}
	}
	return out
}

func fitsSomeNode(free map[string]int64, milliCPU int64) bool {
	for _, f := range free {
		if f >= milliCPU {
			return true
		}
	}
	return false
}
