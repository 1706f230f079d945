package inventory

import (
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/workload"
)

// capacityIndex holds, per node of one member, what it offers and what the
// pods bound to it request. Node and pod events keep it current; it is safe
// for concurrent use.
//
// Every change a snapshot would see gives the index a new generation, drawn
// from one counter for all members so that a generation never names two
// states of nodes, even across reconnections; events that change nothing
// the framework reads (a node's heartbeat, a pod's status) keep it. The
// nodes as the framework sees them are copied once per generation and
// shared by the snapshots until the next change.
type capacityIndex struct {
	mu sync.RWMutex
	// generation names the current state of the nodes.
	generation uint64
	// order is the node names sorted, nil after a node came or went; view
	// is the nodes as Nodes returns them at viewGeneration.
	order          []string
	view           []placement.Node
	viewGeneration uint64

	nodes map[string]nodeEntry
	// requested sums, per node name, the requests of the pods bound to it;
	// it is kept apart from nodes so that pods seen before their node count.
	requested map[string]placement.Resources
	pods      map[types.UID]podEntry
	// bound counts, per owner key (see OwnerKey), the owner's pods bound to
	// a node and not finished; owners whose pods are all gone stay at zero.
	bound map[string]int32
}

type nodeEntry struct {
	node     placement.Node
	capacity placement.Resources
}

type podEntry struct {
	node    string
	owner   string
	request placement.Resources
}

// OwnerKey names the owner of a member object or pod labelled by Meridian,
// as kind/namespace/name; it is "" for objects Meridian did not make.
func OwnerKey(labels map[string]string) string {
	if labels[multiclusterv1alpha1.LabelManagedBy] != multiclusterv1alpha1.ManagedByMeridian || labels[multiclusterv1alpha1.LabelOwnerName] == "" {
		return ""
	}
	return workload.Key(labels[multiclusterv1alpha1.LabelOwnerKind], labels[multiclusterv1alpha1.LabelOwnerNamespace], labels[multiclusterv1alpha1.LabelOwnerName])
}

// generations counts the states of every member's nodes; see capacityIndex.
var generations atomic.Uint64

func newCapacityIndex() *capacityIndex {
	return &capacityIndex{
		generation: generations.Add(1),
		nodes:      map[string]nodeEntry{},
		requested:  map[string]placement.Resources{},
		pods:       map[types.UID]podEntry{},
		bound:      map[string]int32{},
	}
}

// changed gives the index a new generation. The caller holds x.mu.
func (x *capacityIndex) changed() { x.generation = generations.Add(1) }

// setNode records a node's allocatable resources, labels and taints. A node
// that is not Ready takes no new pods, as kube-scheduler's not-ready taint
// ensures in a real cluster, so it is marked unschedulable.
func (x *capacityIndex) setNode(n *corev1.Node) {
	e := nodeEntry{
		node: placement.Node{
			Name:          n.Name,
			Allocatable:   placement.NewResources(n.Status.Allocatable),
			Labels:        n.Labels,
			Taints:        n.Spec.Taints,
			Unschedulable: n.Spec.Unschedulable || !nodeReady(n),
		},
		capacity: placement.NewResources(n.Status.Capacity),
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	old, had := x.nodes[n.Name]
	if had && reflect.DeepEqual(old, e) {
		return
	}
	x.nodes[n.Name] = e
	if !had {
		x.order = nil
	}
	x.changed()
}

func (x *capacityIndex) deleteNode(name string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, had := x.nodes[name]; had {
		delete(x.nodes, name)
		x.order = nil
		x.changed()
	}
}

// setPod counts a pod against its node while it is bound and not finished,
// and stops counting it otherwise.
func (x *capacityIndex) setPod(p *corev1.Pod) {
	counted := p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
	var e podEntry
	if counted {
		e = podEntry{node: p.Spec.NodeName, owner: OwnerKey(p.Labels), request: placement.PodRequests(p)}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if old, had := x.pods[p.UID]; had == counted && (!had || reflect.DeepEqual(old, e)) {
		return // most pod events change only the status
	}
	x.removePodLocked(p.UID)
	if !counted {
		return
	}
	x.changed()
	x.pods[p.UID] = e
	x.requested[e.node] = x.requested[e.node].Add(e.request)
	if e.owner != "" {
		x.bound[e.owner]++
	}
}

func (x *capacityIndex) deletePod(uid types.UID) {
	x.mu.Lock()
	x.removePodLocked(uid)
	x.mu.Unlock()
}

func (x *capacityIndex) removePodLocked(uid types.UID) {
	e, ok := x.pods[uid]
	if !ok {
		return
	}
	delete(x.pods, uid)
	x.changed()
	if e.owner != "" {
		x.bound[e.owner]--
	}
	r := x.requested[e.node].Sub(e.request)
	if r.Pods <= 0 {
		delete(x.requested, e.node)
		return
	}
	x.requested[e.node] = r
}

// boundOf returns how many pods of the owner are bound and not finished.
func (x *capacityIndex) boundOf(owner string) int32 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.bound[owner]
}

// Nodes returns the member's nodes sorted by name, with Requested filled.
func (x *capacityIndex) Nodes() []placement.Node {
	nodes, _ := x.shared()
	return slices.Clone(nodes)
}

// shared returns what Nodes returns and its generation, copied only when
// the generation changed since the last call. The nodes are shared with
// every caller until then: they must not be changed.
func (x *capacityIndex) shared() ([]placement.Node, uint64) {
	x.mu.RLock()
	if x.viewGeneration == x.generation {
		defer x.mu.RUnlock()
		return x.view, x.generation
	}
	x.mu.RUnlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.viewGeneration != x.generation {
		if x.order == nil {
			x.order = slices.Sorted(maps.Keys(x.nodes))
		}
		view := make([]placement.Node, len(x.order))
		for i, name := range x.order {
			view[i] = x.nodes[name].node
			view[i].Requested = x.requested[name]
		}
		x.view, x.viewGeneration = view, x.generation
	}
	return x.view, x.generation
}

// PodsByNode returns, per node name, the requests of the pods bound to it.
func (x *capacityIndex) PodsByNode() map[string][]placement.Resources {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := map[string][]placement.Resources{}
	for _, p := range x.pods {
		out[p.node] = append(out[p.node], p.request)
	}
	return out
}

// Owners counts the owners with at least one pod bound and not finished.
func (x *capacityIndex) Owners() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := 0
	for _, c := range x.bound {
		if c > 0 {
			n++
		}
	}
	return n
}

// Summary is the totals a Cluster's status reports.
type Summary struct {
	Nodes       int32
	Capacity    corev1.ResourceList
	Allocatable corev1.ResourceList
	Allocated   corev1.ResourceList
}

// Summary totals capacity over all nodes, allocatable over the schedulable
// ones, and the requests of the pods bound to any node.
func (x *capacityIndex) Summary() Summary {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var capacity, allocatable, allocated placement.Resources
	for _, e := range x.nodes {
		capacity = capacity.Add(e.capacity)
		if !e.node.Unschedulable {
			allocatable = allocatable.Add(e.node.Allocatable)
		}
	}
	for _, r := range x.requested {
		allocated = allocated.Add(r)
	}
	return Summary{
		Nodes:       int32(len(x.nodes)),
		Capacity:    resourceList(capacity),
		Allocatable: resourceList(allocatable),
		Allocated:   resourceList(allocated),
	}
}

func resourceList(r placement.Resources) corev1.ResourceList {
	l := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(r.MilliCPU, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(r.Memory, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(r.Pods, resource.DecimalSI),
	}
	for k, v := range r.Scalar {
		l[k] = *resource.NewQuantity(v, resource.DecimalSI)
	}
	return l
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
