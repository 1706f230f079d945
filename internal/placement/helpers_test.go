package placement

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

const gi = 1 << 30

// res returns Resources of milli CPU, gib GiB of memory and pods pods.
func res(milli int64, gib int64, pods int64) Resources {
	return Resources{MilliCPU: milli, Memory: gib * gi, Pods: pods}
}

// freeNodes returns n nodes that each have free CPU milli, gib GiB of
// memory and 110 pod slots.
func freeNodes(n int, milli, gib int64) []Node {
	nodes := make([]Node, n)
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("node-%d", i), Allocatable: res(milli, gib, 110)}
	}
	return nodes
}

func taint(key, value string, effect corev1.TaintEffect) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: effect}
}
