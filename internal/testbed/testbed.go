package testbed

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultName is the name of a testbed when none is given.
const DefaultName = "meridian"

// Testbed is a running testbed: its clusters and how to reach them.
type Testbed struct {
	Name string
	// Dir holds all of the testbed's state.
	Dir string
	// Kubeconfig is the path of the kubeconfig with a context per cluster
	// (ContextName), the management cluster's current.
	Kubeconfig        string
	Profile           string
	KubernetesVersion string
	StartedAt         time.Time
	// Clusters are the management cluster, then the members in profile
	// order, then those AddCluster added.
	Clusters []*Cluster
}

// Cluster is one cluster of a testbed.
type Cluster struct {
	Name string
	Role Role
	// Server is the API server's URL.
	Server string
	// Context is the cluster's context in the testbed's kubeconfig.
	Context string
	Ports   Ports
	// Nodes is the number of fake nodes the profile gave the cluster;
	// SetNodes's workers are not counted.
	Nodes int
	// Added is true for a member AddCluster started, outside the profile.
	Added bool
	// Kubeconfig is a self-contained kubeconfig (credentials embedded) for
	// the cluster alone, as its kubeconfig Secret holds it.
	Kubeconfig []byte
	// Config reaches the API server as a cluster administrator.
	Config *rest.Config
}

// Management returns the management cluster.
func (tb *Testbed) Management() *Cluster { return tb.Clusters[0] }

// Members returns the member clusters.
func (tb *Testbed) Members() []*Cluster { return tb.Clusters[1:] }

// Cluster returns the cluster of that name, nil if there is none.
func (tb *Testbed) Cluster(name string) *Cluster {
	for _, c := range tb.Clusters {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Client returns a controller-runtime client of the cluster with Scheme's
// types.
func (c *Cluster) Client() (client.Client, error) {
	cl, err := client.New(c.Config, client.Options{Scheme: Scheme()})
	if err != nil {
		return nil, fmt.Errorf("failed to create a client of cluster %q: %w", c.Name, err)
	}
	return cl, nil
}

// Open returns the testbed recorded in dir, which must be up: its state
// file read and its credentials loaded. It does not check that the
// processes are alive (Status does).
func Open(dir string) (*Testbed, error) {
	l, st, err := readStateIn(dir)
	if err != nil {
		return nil, err
	}
	if st.Phase != PhaseUp {
		return nil, fmt.Errorf("testbed %q in %s is %s, not %s", st.Name, l.dir, st.Phase, PhaseUp)
	}
	return l.testbed(st)
}

// OpenCluster returns one cluster of the testbed in dir, with its
// credentials loaded; the error wraps ErrClusterNotFound when there is no
// cluster of that name. Unlike Open it works while another call adds or
// removes a cluster, and on an added cluster whatever its phase.
func OpenCluster(dir, cluster string) (*Cluster, error) {
	l, st, err := readStateIn(dir)
	if err != nil {
		return nil, err
	}
	cs, err := st.find(cluster)
	if err != nil {
		return nil, err
	}
	return l.cluster(st, cs)
}

// testbed builds a Testbed from its state and the clusters' credentials.
// An added cluster that failed before kwokctl wrote its credentials is
// left out: there is nothing to reach.
func (l layout) testbed(st *state) (*Testbed, error) {
	tb := &Testbed{
		Name:              st.Name,
		Dir:               l.dir,
		Kubeconfig:        l.kubeconfig(),
		Profile:           st.Profile,
		KubernetesVersion: st.KubernetesVersion,
		StartedAt:         st.StartedAt,
	}
	for i := range st.Clusters {
		cs := &st.Clusters[i]
		c, err := l.cluster(st, cs)
		if errors.Is(err, fs.ErrNotExist) && cs.Added {
			continue
		}
		if err != nil {
			return nil, err
		}
		tb.Clusters = append(tb.Clusters, c)
	}
	return tb, nil
}

// cluster builds a Cluster from its state and its credentials.
func (l layout) cluster(st *state, cs *clusterState) (*Cluster, error) {
	cr, err := l.credentials(cs)
	if err != nil {
		return nil, err
	}
	kc, err := buildKubeconfig(kubeconfigContext{Name: cs.Name, credentials: cr})
	if err != nil {
		return nil, err
	}
	return &Cluster{
		Name:       cs.Name,
		Role:       cs.Role,
		Server:     cs.server(),
		Context:    ContextName(st.Name, cs.Name),
		Ports:      cs.Ports,
		Nodes:      cs.Nodes,
		Added:      cs.Added,
		Kubeconfig: kc,
		Config:     cr.restConfig(),
	}, nil
}
