package sharing

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// NodeSpare is what one provider node can spare.
type NodeSpare struct {
	// Name of the node.
	Name string
	// Labels of the node that a pod's node selector may ask for and that
	// shapes keep apart (ShapeLabels).
	Labels map[string]string
	// Free is allocatable minus the requests of the node's own pods (not
	// the twins of consumers' pods); "pods" counts pod slots.
	Free corev1.ResourceList
	// UsedBy sums the requests of the twins of each consumer's pods on
	// the node; they run inside that consumer's reservation.
	UsedBy map[sharingv1alpha1.ClusterID]corev1.ResourceList
}

// ShapeLabels are the node labels a shape keeps: pods select nodes by them,
// so two nodes that differ in them are never one shape.
var ShapeLabels = []string{corev1.LabelArchStable, corev1.LabelOSStable}

// Spare computes what each node can spare: allocatable minus the requests
// of the pods bound to it that have not finished, per node, sorted by name.
// Nodes that are unschedulable, not Ready or virtual (made by a sharing
// agent) are left out, so capacity lent by a third cluster is never lent
// again. A pod labelled with sharingv1alpha1.LabelConsumer is a twin and
// counts toward that consumer's UsedBy instead of Free.
func Spare(nodes []corev1.Node, pods []corev1.Pod) []NodeSpare {
	byNode := map[string][]*corev1.Pod{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
	}
	var out []NodeSpare
	for i := range nodes {
		n := &nodes[i]
		if n.Spec.Unschedulable || !nodeReady(n) || n.Labels[sharingv1alpha1.LabelVirtualNode] == "true" {
			continue
		}
		free := n.Status.Allocatable.DeepCopy()
		if free == nil {
			free = corev1.ResourceList{}
		}
		used := map[sharingv1alpha1.ClusterID]corev1.ResourceList{}
		var own int64
		for _, p := range byNode[n.Name] {
			req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
			if c := p.Labels[sharingv1alpha1.LabelConsumer]; c != "" {
				id := sharingv1alpha1.ClusterID(c)
				if used[id] == nil {
					used[id] = corev1.ResourceList{}
				}
				add(used[id], req)
				addPods(used[id], 1)
				continue
			}
			sub(free, req)
			own++
		}
		if pods, ok := free[corev1.ResourcePods]; ok {
			pods.Sub(*resourceQuantity(own))
			free[corev1.ResourcePods] = pods
		}
		labels := map[string]string{}
		for _, k := range ShapeLabels {
			if v, ok := n.Labels[k]; ok {
				labels[k] = v
			}
		}
		out = append(out, NodeSpare{Name: n.Name, Labels: labels, Free: free, UsedBy: used})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
