package extender

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
)

// Cache is the extender's view of a cluster's nodes: each node's object
// and what the pods bound to it request (pods that ended request
// nothing, as in kube-scheduler's cache). It is safe for concurrent use.
type Cache struct {
	mu        sync.RWMutex
	nodes     map[string]*corev1.Node
	requested map[string]serve.Requested
	pods      map[types.UID]boundPod
	// names and index are rebuilt when the set of nodes changes and are
	// not modified afterwards, so a snapshot may share them.
	names []string
	index map[string]int
	dirty bool
}

type boundPod struct {
	node string
	req  serve.Requested
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{nodes: map[string]*corev1.Node{}, requested: map[string]serve.Requested{},
		pods: map[types.UID]boundPod{}, index: map[string]int{}}
}

// SetNode adds or replaces a node.
func (c *Cache) SetNode(n *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.nodes[n.Name]; !ok {
		c.dirty = true
	}
	c.nodes[n.Name] = n
}

// DeleteNode removes a node.
func (c *Cache) DeleteNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.nodes, name)
	c.dirty = true
}

// SetPod records what pod requests of its node; a pod not bound, or that
// ended, requests nothing.
func (c *Cache) SetPod(p *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removePod(p.UID)
	if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return
	}
	b := boundPod{node: p.Spec.NodeName, req: serve.PodRequested(p)}
	c.pods[p.UID] = b
	c.requested[b.node] = c.requested[b.node].Add(b.req)
}

// DeletePod forgets a pod.
func (c *Cache) DeletePod(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removePod(uid)
}

func (c *Cache) removePod(uid types.UID) {
	b, ok := c.pods[uid]
	if !ok {
		return
	}
	delete(c.pods, uid)
	if r := c.requested[b.node].Sub(b.req); r.Pods > 0 {
		c.requested[b.node] = r
	} else {
		delete(c.requested, b.node)
	}
}

// Snapshot writes every node's state into buf (grown as needed) in name
// order and returns it with the names and their positions. names and index
// must not be modified.
func (c *Cache) Snapshot(m *serve.Metrics, buf []learn.NodeState) (nodes []learn.NodeState, names []string, index map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty {
		c.names = make([]string, 0, len(c.nodes))
		for name := range c.nodes {
			c.names = append(c.names, name)
		}
		slices.Sort(c.names)
		c.index = make(map[string]int, len(c.names))
		for i, name := range c.names {
			c.index[name] = i
		}
		c.dirty = false
	}
	names, index = c.names, c.index
	nodes = slices.Grow(buf[:0], len(names))[:len(names)]
	for i, name := range names {
		nodes[i] = serve.NodeState(c.nodes[name], c.requested[name], m.Lookup(name))
	}
	return nodes, names, index
}

// Len returns the number of cached nodes.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.nodes)
}

// Watch fills the cache from the cluster client talks to and keeps it
// current until ctx ends; it returns once the informers have synced.
func (c *Cache) Watch(ctx context.Context, client kubernetes.Interface) error {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 10*time.Minute)
	nodes := factory.Core().V1().Nodes().Informer()
	if _, err := nodes.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.SetNode(obj.(*corev1.Node)) },
		UpdateFunc: func(_, obj any) { c.SetNode(obj.(*corev1.Node)) },
		DeleteFunc: func(obj any) {
			if n, ok := unwrap(obj).(*corev1.Node); ok {
				c.DeleteNode(n.Name)
			}
		},
	}); err != nil {
		return fmt.Errorf("failed to watch nodes: %w", err)
	}
	pods := factory.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.SetPod(obj.(*corev1.Pod)) },
		UpdateFunc: func(_, obj any) { c.SetPod(obj.(*corev1.Pod)) },
		DeleteFunc: func(obj any) {
			if p, ok := unwrap(obj).(*corev1.Pod); ok {
				c.DeletePod(p.UID)
			}
		},
	}); err != nil {
		return fmt.Errorf("failed to watch pods: %w", err)
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("failed to sync the %v informer: %w", typ, context.Cause(ctx))
		}
	}
	return nil
}

// unwrap returns the object of a deletion whose final state was missed.
func unwrap(obj any) any {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		return d.Obj
	}
	return obj
}
