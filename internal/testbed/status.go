package testbed

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Status is what a testbed's processes and API servers say now.
type Status struct {
	Name              string
	Dir               string
	Profile           string
	Phase             string
	KubernetesVersion string
	StartedAt         time.Time
	Kubeconfig        string
	Clusters          []ClusterStatus
}

// ClusterStatus is one cluster's processes, API server and nodes.
type ClusterStatus struct {
	Name    string
	Role    Role
	Server  string
	Context string
	// Added is true for a member AddCluster started, outside the profile;
	// Phase is then Starting, Up or Failed.
	Added bool
	Phase string
	// Components are in start order (Role.Components).
	Components []ComponentStatus
	// RSSBytes and PSSBytes sum the memory of the cluster's processes
	// (see Process).
	RSSBytes int64
	PSSBytes int64
	// APIError is empty when the API server answered /readyz with ok.
	APIError string
	// NodesReady counts the nodes the scheduler may use, of NodesTotal.
	NodesReady int
	NodesTotal int
}

// ComponentStatus is one process of a cluster.
type ComponentStatus struct {
	Name string
	// PID is the running process's, or the last one kwokctl recorded.
	PID      int
	Alive    bool
	RSSBytes int64
	PSSBytes int64
}

// Ready reports whether every process runs, the API server is ready and
// every node is schedulable.
func (c *ClusterStatus) Ready() bool {
	for _, comp := range c.Components {
		if !comp.Alive {
			return false
		}
	}
	return c.APIError == "" && c.NodesReady == c.NodesTotal
}

// AliveCount counts the running components.
func (c *ClusterStatus) AliveCount() int {
	n := 0
	for _, comp := range c.Components {
		if comp.Alive {
			n++
		}
	}
	return n
}

// statusTimeout bounds each API server's answers in GetStatus, so that a
// dead cluster does not hold up the report of the others.
const statusTimeout = 3 * time.Second

// GetStatus reports on the testbed in dir: every component's process, the
// memory it uses, whether each API server is ready, and the nodes.
func GetStatus(ctx context.Context, dir string) (*Status, error) {
	l, st, err := readStateIn(dir)
	if err != nil {
		return nil, err
	}
	procs, err := l.processes()
	if err != nil {
		return nil, err
	}
	running := map[[2]string]Process{}
	for _, p := range procs {
		running[[2]string{p.Cluster, p.Component}] = p
	}
	out := &Status{
		Name:              st.Name,
		Dir:               l.dir,
		Profile:           st.Profile,
		Phase:             st.Phase,
		KubernetesVersion: st.KubernetesVersion,
		StartedAt:         st.StartedAt,
		Kubeconfig:        l.kubeconfig(),
		Clusters:          make([]ClusterStatus, len(st.Clusters)),
	}
	var wg sync.WaitGroup
	for i := range st.Clusters {
		cs := &st.Clusters[i]
		c := &out.Clusters[i]
		l.processStatus(st.Name, cs, running, c)
		wg.Go(func() { l.probe(ctx, cs, c) })
	}
	wg.Wait()
	return out, nil
}

// GetClusterStatus reports on one cluster of the testbed in dir, as
// GetStatus does; the error wraps ErrClusterNotFound when the testbed has
// no cluster of that name.
func GetClusterStatus(ctx context.Context, dir, cluster string) (*ClusterStatus, error) {
	l, st, err := readStateIn(dir)
	if err != nil {
		return nil, err
	}
	cs, err := st.find(cluster)
	if err != nil {
		return nil, err
	}
	procs, err := l.processes()
	if err != nil {
		return nil, err
	}
	running := map[[2]string]Process{}
	for _, p := range procs {
		running[[2]string{p.Cluster, p.Component}] = p
	}
	c := &ClusterStatus{}
	l.processStatus(st.Name, cs, running, c)
	l.probe(ctx, cs, c)
	return c, nil
}

// processStatus fills in what /proc says of the cluster's components.
func (l layout) processStatus(testbed string, cs *clusterState, running map[[2]string]Process, c *ClusterStatus) {
	*c = ClusterStatus{
		Name: cs.Name, Role: cs.Role, Server: cs.server(), Context: ContextName(testbed, cs.Name),
		Added: cs.Added, Phase: cs.Phase,
	}
	for _, name := range cs.Role.Components() {
		comp := ComponentStatus{Name: name, PID: l.readPID(cs.Name, name)}
		if p, ok := running[[2]string{cs.Name, name}]; ok {
			comp.PID, comp.Alive, comp.RSSBytes, comp.PSSBytes = p.PID, true, p.RSSBytes, p.PSSBytes
			c.RSSBytes += p.RSSBytes
			c.PSSBytes += p.PSSBytes
		}
		c.Components = append(c.Components, comp)
	}
}

// probe asks the cluster's API server whether it is ready and how its
// nodes are.
func (l layout) probe(ctx context.Context, cs *clusterState, c *ClusterStatus) {
	cr, err := l.credentials(cs)
	if err != nil {
		c.APIError = err.Error()
		return
	}
	cfg := cr.restConfig()
	cfg.Timeout = statusTimeout
	cl, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		c.APIError = err.Error()
		return
	}
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	if _, err := cl.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		c.APIError = err.Error()
		return
	}
	nodes, err := cl.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		c.APIError = fmt.Sprintf("failed to list nodes: %v", err)
		return
	}
	c.NodesTotal = len(nodes.Items)
	c.NodesReady = countSchedulable(nodes.Items)
}
