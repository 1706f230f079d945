package placement

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// UntoleratedTaint returns the first taint with effect NoSchedule or
// NoExecute that none of the tolerations tolerates, and true; or false when
// every such taint is tolerated. PreferNoSchedule taints never rule anything
// out. Matching is the Kubernetes API's own (Toleration.ToleratesTaint), with
// the alpha comparison operators off, as in a default kube-scheduler.
func UntoleratedTaint(taints []corev1.Taint, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !tolerates(tolerations, t) {
			return *t, true
		}
	}
	return corev1.Taint{}, false
}

func tolerates(tolerations []corev1.Toleration, t *corev1.Taint) bool {
	for i := range tolerations {
		// The logger is only used by the comparison operators, which are off.
		if tolerations[i].ToleratesTaint(klog.Logger{}, t, false) {
			return true
		}
	}
	return false
}

// unschedulableTaint is the taint kube-scheduler's NodeUnschedulable plugin
// checks against a cordoned node: a pod that tolerates it may still go there.
var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// NodeUsable reports whether a pod with the tolerations may be scheduled on
// the node at all, resources aside: the node is not cordoned (or the pod
// tolerates node.kubernetes.io/unschedulable) and every NoSchedule and
// NoExecute taint is tolerated.
func NodeUsable(n *Node, tolerations []corev1.Toleration) bool {
	if n.Unschedulable && !tolerates(tolerations, &unschedulableTaint) {
		return false
	}
	_, bad := UntoleratedTaint(n.Taints, tolerations)
	return !bad
}

// ReplicasOn returns how many pods of request req fit in free, the way
// kube-scheduler's NodeResourcesFit sees one node: each pod takes one pod
// slot, and a pod fits while every requested amount is at most what is free
// (req.Pods is ignored). Resources the pod does not request never limit it.
func ReplicasOn(free *Resources, req *Resources) int64 {
	n := free.Pods
	if req.MilliCPU > 0 {
		n = min(n, free.MilliCPU/req.MilliCPU)
	}
	if req.Memory > 0 {
		n = min(n, free.Memory/req.Memory)
	}
	if len(req.Scalar) > 0 {
		for name, v := range req.Scalar {
			if v > 0 {
				n = min(n, free.Scalar[name]/v)
			}
		}
	}
	return max(n, 0)
}

// FitCount returns how many replicas of a pod with request req and the
// tolerations fit in a cluster whose nodes have the free resources free
// (free[i] belongs to nodes[i]; with nodes nil, every node counts as
// usable), counted node by node so that fragmentation counts: ten nodes
// with one CPU free each hold no pod of two CPUs. Cordoned nodes and nodes
// with untolerated NoSchedule or NoExecute taints hold none. The result
// saturates at math.MaxInt32.
//
// ClusterInfo.FitCount gives the same answer faster from what NewSnapshot
// precomputed; use this one for nodes outside a snapshot.
func FitCount(free []Resources, nodes []Node, req Resources, tolerations []corev1.Toleration) int32 {
	var total int64
	for i := range free {
		if i < len(nodes) && !NodeUsable(&nodes[i], tolerations) {
			continue
		}
		total += ReplicasOn(&free[i], &req)
		if total >= math.MaxInt32 {
			return math.MaxInt32
		}
	}
	return int32(total)
}

// The per-node facts NewSnapshot precomputes so that the hot path does not
// touch the Node structs.
const (
	nodeCordoned uint8 = 1 << iota
	nodeTainted        // has NoSchedule or NoExecute taints
)

// FitCount returns FitCount(c.Free, c.Nodes, req, tolerations), using the
// per-node flags and largest free amounts that NewSnapshot precomputed: a
// request larger than any node's free amount is answered at once, and
// untainted nodes are counted without looking at taints.
func (c *ClusterInfo) FitCount(req Resources, tolerations []corev1.Toleration) int32 {
	if !c.derived() {
		return FitCount(c.Free, c.Nodes, req, tolerations)
	}
	if !c.mayFit(&req) {
		return 0
	}
	var total int64
	if c.anyFlag || len(req.Scalar) > 0 {
		for i := range c.Free {
			if c.flags[i] != 0 && !NodeUsable(&c.Nodes[i], tolerations) {
				continue
			}
			total += ReplicasOn(&c.Free[i], &req)
		}
	} else {
		total = sumReplicas(c.Free, req.MilliCPU, req.Memory)
	}
	return int32(min(total, math.MaxInt32))
}

// FitsOne reports whether at least one pod of req with the tolerations fits
// on some node of c, stopping at the first node that holds one.
func (c *ClusterInfo) FitsOne(req Resources, tolerations []corev1.Toleration) bool {
	if !c.derived() {
		return FitCount(c.Free, c.Nodes, req, tolerations) > 0
	}
	if !c.mayFit(&req) {
		return false
	}
	for i := range c.Free {
		if c.flags[i] != 0 && !NodeUsable(&c.Nodes[i], tolerations) {
			continue
		}
		if ReplicasOn(&c.Free[i], &req) > 0 {
			return true
		}
	}
	return false
}

// derived reports whether c carries what NewSnapshot precomputes, rather
// than having been put together by hand.
func (c *ClusterInfo) derived() bool {
	return len(c.flags) == len(c.Nodes) && len(c.Free) == len(c.Nodes)
}

// sumReplicas is the hot loop of FitCount for clusters whose nodes are all
// usable and a request without extended resources.
func sumReplicas(free []Resources, cpu, mem int64) int64 {
	var total int64
	for i := range free {
		f := &free[i]
		n := f.Pods
		if cpu > 0 {
			n = min(n, f.MilliCPU/cpu)
		}
		if mem > 0 {
			n = min(n, f.Memory/mem)
		}
		total += max(n, 0)
	}
	return total
}

// mayFit reports whether some schedulable node might hold one pod of req,
// from the largest free amounts alone; false is certain, true is a maybe.
func (c *ClusterInfo) mayFit(req *Resources) bool {
	m := &c.maxFree
	return m.Pods >= 1 && req.MilliCPU <= m.MilliCPU && req.Memory <= m.Memory
}
