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

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// Labels and annotations the testbed puts on what it creates.
const (
	// LabelTestbed names the testbed that created a node or a Cluster.
	LabelTestbed = "testbed.meridian.dev/name"
	// LabelCluster names the member cluster a node belongs to.
	LabelCluster = "testbed.meridian.dev/cluster"
	// LabelNodeGroup names the node group of a worker SetNodeGroup made:
	// the CloudProvisioner's node pool, under the label Cluster API copies
	// to the nodes of a real cloud cluster.
	LabelNodeGroup = multiclusterv1alpha1.LabelNodePool

	// kwokNodeAnnotation marks a node as kwok's: the testbed's kwok
	// controllers manage only nodes that carry it, so that nodes others
	// make (the sharing agent's virtual nodes) stay theirs.
	kwokNodeAnnotation = "kwok.x-k8s.io/node"

	// resourceMetricsPathAnnotation tells metrics-server where a node's
	// kubelet serves /metrics/resource. One kwok controller emulates the
	// kubelet of every node of its cluster, on one port, under a path per
	// node.
	resourceMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"
)

// kubeletAddress is every member node's ExternalIP: where metrics-server
// reaches the kubelet that the cluster's kwok controller emulates (on the
// port kwok writes into the node's status). The InternalIP stays distinct
// per node, as pods' hostIP shows it.
const kubeletAddress = "127.0.0.1"

// NodeSize is the capacity of a fake node, also its allocatable.
type NodeSize struct {
	CPU    resource.Quantity
	Memory resource.Quantity
	// Pods is the pod capacity; DefaultPodsPerNode when zero.
	Pods int64
}

// String describes the size as "4 CPU / 16Gi".
func (s NodeSize) String() string {
	return fmt.Sprintf("%s CPU / %s", s.CPU.String(), s.Memory.String())
}

// Validate reports a size that is not a node's, naming the field.
func (s NodeSize) Validate() error {
	var errs []string
	if s.CPU.Sign() <= 0 {
		errs = append(errs, fmt.Sprintf("cpu: %q must be positive, such as 4 or 500m", s.CPU.String()))
	}
	if s.Memory.Sign() <= 0 {
		errs = append(errs, fmt.Sprintf("memory: %q must be positive, such as 16Gi", s.Memory.String()))
	}
	if s.Pods < 0 {
		errs = append(errs, fmt.Sprintf("pods: %d must be positive, or 0 for %d", s.Pods, DefaultPodsPerNode))
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid node size: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (p NodePool) size() NodeSize { return NodeSize{CPU: p.CPU, Memory: p.Memory, Pods: p.Pods} }

// nodeSite is where a cluster's nodes are: what every one of them shares.
type nodeSite struct {
	testbed, cluster string
	region, zone     string
}

// node returns a Node with the size as both capacity and allocatable, the
// cluster's region and zone as topology labels, and internalIP. The status
// is part of what is created: an API server keeps a Node's status on
// create, and kwok's node-initialize stage keeps the capacity and
// addresses it finds and only adds conditions, node info and the port of
// the kubelet it emulates.
func (s nodeSite) node(name, internalIP string, size NodeSize) *corev1.Node {
	pods := size.Pods
	if pods == 0 {
		pods = DefaultPodsPerNode
	}
	resources := corev1.ResourceList{
		corev1.ResourceCPU:    size.CPU.DeepCopy(),
		corev1.ResourceMemory: size.Memory.DeepCopy(),
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
	labels := map[string]string{
		corev1.LabelHostname:           name,
		corev1.LabelOSStable:           "linux",
		corev1.LabelArchStable:         "amd64",
		corev1.LabelInstanceTypeStable: instanceType(size),
		"type":                         "kwok",
		LabelTestbed:                   s.testbed,
		LabelCluster:                   s.cluster,
	}
	if s.region != "" {
		labels[corev1.LabelTopologyRegion] = s.region
	}
	if s.zone != "" {
		labels[corev1.LabelTopologyZone] = s.zone
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: labels,
			Annotations: map[string]string{
				kwokNodeAnnotation:            "fake",
				resourceMetricsPathAnnotation: "/metrics/nodes/" + name + "/metrics/resource",
			},
		},
		Status: corev1.NodeStatus{
			Capacity:    resources.DeepCopy(),
			Allocatable: resources.DeepCopy(),
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: internalIP},
				{Type: corev1.NodeExternalIP, Address: kubeletAddress},
				{Type: corev1.NodeHostName, Address: name},
			},
		},
	}
}

// nodes returns the Node objects of the index-th member (from 1): one per
// node of each pool, named <cluster>-node-<n>. Node n of member i gets the
// address 172.16.i.n (its pods get theirs from the cluster's kwok, see
// podCIDR).
func nodes(testbed string, index int, c *ClusterProfile) []*corev1.Node {
	site := nodeSite{testbed: testbed, cluster: c.Name, region: c.Region, zone: c.Zone}
	var out []*corev1.Node
	n := 0
	for _, pool := range c.Nodes {
		for range pool.Count {
			n++
			name := fmt.Sprintf("%s-node-%d", c.Name, n)
			out = append(out, site.node(name, fmt.Sprintf("172.16.%d.%d", index, n), pool.size()))
		}
	}
	return out
}

// instanceType names a node size as a label value, "kwok-4cpu-16gi".
func instanceType(s NodeSize) string {
	return strings.ToLower(fmt.Sprintf("kwok-%scpu-%s", s.CPU.String(), s.Memory.String()))
}

// createNodes creates nodes and waits until kwok reports each Ready and
// the node lifecycle controller has lifted the not-ready taint, so that
// the scheduler places pods on them from then on.
func createNodes(ctx context.Context, c client.Client, want []*corev1.Node) error {
	names := make(map[string]bool, len(want))
	for _, n := range want {
		if err := c.Create(ctx, n); err != nil {
			return fmt.Errorf("failed to create node %s: %w", n.Name, err)
		}
		names[n.Name] = true
	}
	return poll(ctx, 100*time.Millisecond, func() (bool, error) {
		list := &corev1.NodeList{}
		if err := c.List(ctx, list); err != nil {
			return false, fmt.Errorf("failed to list nodes: %w", err)
		}
		ready := 0
		for i := range list.Items {
			if names[list.Items[i].Name] && nodeSchedulable(&list.Items[i]) {
				ready++
			}
		}
		return ready == len(names), nil
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
