package testbed

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Labels and annotations the testbed puts on what it creates.
const (
	// LabelTestbed names the testbed that created a node or a Cluster.
	LabelTestbed = "testbed.meridian.dev/name"
	// LabelCluster names the member cluster a node belongs to.
	LabelCluster = "testbed.meridian.dev/cluster"

	// kwokNodeAnnotation marks a node as kwok's. The testbed's kwok
	// controllers manage every node of their cluster anyway; the annotation
	// is kwok's documented marker, for tools that look for it.
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
)

// nodes returns the Node objects of the index-th member (from 1): one per
// node of each pool, named <cluster>-node-<n>, with the pool's capacity as
// both capacity and allocatable, and the cluster's region and zone as
// topology labels. The status is part of what is created: an API server
// keeps a Node's status on create, and kwok's node-initialize stage keeps
// the capacity and addresses it finds and only adds conditions and node
// info.
//
// Node n of member i gets the address 172.16.i.n (its pods get theirs from
// the cluster's kwok, see podCIDR).
func nodes(testbed string, index int, c *ClusterProfile) []*corev1.Node {
	var out []*corev1.Node
	n := 0
	for _, pool := range c.Nodes {
		pods := pool.Pods
		if pods == 0 {
			pods = DefaultPodsPerNode
		}
		resources := corev1.ResourceList{
			corev1.ResourceCPU:    pool.CPU.DeepCopy(),
			corev1.ResourceMemory: pool.Memory.DeepCopy(),
			corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
		}
		for range pool.Count {
			n++
			name := fmt.Sprintf("%s-node-%d", c.Name, n)
			labels := map[string]string{
				corev1.LabelHostname:           name,
				corev1.LabelOSStable:           "linux",
				corev1.LabelArchStable:         "amd64",
				corev1.LabelInstanceTypeStable: instanceType(pool),
				"type":                         "kwok",
				LabelTestbed:                   testbed,
				LabelCluster:                   c.Name,
			}
			if c.Region != "" {
				labels[corev1.LabelTopologyRegion] = c.Region
			}
			if c.Zone != "" {
				labels[corev1.LabelTopologyZone] = c.Zone
			}
			out = append(out, &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{
					Name:        name,
					Labels:      labels,
					Annotations: map[string]string{kwokNodeAnnotation: "fake"},
				},
				Status: corev1.NodeStatus{
					Capacity:    resources.DeepCopy(),
					Allocatable: resources.DeepCopy(),
					Addresses: []corev1.NodeAddress{
						{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("172.16.%d.%d", index, n)},
						{Type: corev1.NodeHostName, Address: name},
					},
				},
			})
		}
	}
	return out
}

// instanceType names a node size as a label value, "kwok-4cpu-16gi".
func instanceType(p NodePool) string {
	return strings.ToLower(fmt.Sprintf("kwok-%scpu-%s", p.CPU.String(), p.Memory.String()))
}

// createNodes creates the member's nodes and waits until kwok reports each
// Ready and the node lifecycle controller has lifted the not-ready taint,
// so that the scheduler places pods on them from then on.
func createNodes(ctx context.Context, c client.Client, want []*corev1.Node) error {
	for _, n := range want {
		if err := c.Create(ctx, n); err != nil {
			return fmt.Errorf("failed to create node %s: %w", n.Name, err)
		}
	}
	return poll(ctx, 100*time.Millisecond, func() (bool, error) {
		list := &corev1.NodeList{}
		if err := c.List(ctx, list); err != nil {
			return false, fmt.Errorf("failed to list nodes: %w", err)
		}
		return countSchedulable(list.Items) == len(want), nil
	})
}

// countSchedulable counts the nodes that are Ready, not cordoned and not
// tainted not-ready: those the scheduler may use.
func countSchedulable(items []corev1.Node) int {
	n := 0
	for i := range items {
		if nodeSchedulable(&items[i]) {
			n++
		}
	}
	return n
}

func nodeSchedulable(n *corev1.Node) bool {
	if n.Spec.Unschedulable {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
			return false
		}
	}
	return nodeReady(n)
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// poll calls check every interval until it is done, fails, or ctx ends.
func poll(ctx context.Context, interval time.Duration, check func() (bool, error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		done, err := check()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
