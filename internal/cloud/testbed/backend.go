package testbed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
	localtestbed "github.com/meridian-dev/meridian/internal/testbed"
)

// Backend starts cloud clusters as members of the testbed in one folder.
// It is safe for concurrent use.
type Backend struct {
	dir string

	mu sync.Mutex
	// clients keeps one client per cluster, made again when the cluster's
	// kubeconfig changes (it was started again).
	clients map[string]clusterClient
}

type clusterClient struct {
	kubeconfig []byte
	client     client.Client
}

var _ cloud.Backend = &Backend{}

// New returns a backend acting on the testbed in dir, which `meridian
// testbed up` (or testbed.Up) started.
func New(dir string) *Backend {
	return &Backend{dir: dir, clients: map[string]clusterClient{}}
}

// The CloudProvisioner fields a cloud.Spec comes from, which errors name so
// that a user knows what to change.
var (
	pathName    = field.NewPath("spec", "cloudClusterName")
	pathRegion  = field.NewPath("spec", "region")
	pathWorkers = field.NewPath("status", "desiredNodes")
)

// group is the testbed node group of a pool: "" (SetNodes's workers) for
// cloud.DefaultPool, so that a cluster made before node pools keeps its
// workers, else the pool's name.
func group(p cloud.Pool) string {
	if p.Name == cloud.DefaultPool {
		return ""
	}
	return p.Name
}

// Ensure starts the cluster when the testbed lacks it or it is broken,
// then gives each pool its workers, one kwok node group per pool
// (testbed.SetNodeGroup). The workers a pool's Remove names are deleted
// first, even when the pool grows, and their names are not given again.
// It blocks while the cluster starts, a few seconds.
func (b *Backend) Ensure(ctx context.Context, spec cloud.Spec) error {
	errs := validateName(spec)
	if spec.Region != "" {
		for _, msg := range validation.IsDNS1123Label(spec.Region) {
			errs = append(errs, field.Invalid(pathRegion, spec.Region, msg+" (it labels the testbed's nodes)"))
		}
	}
	seen := map[string]bool{}
	for _, p := range spec.Pools {
		path := cloud.PoolPath(p)
		if seen[p.Name] {
			errs = append(errs, field.Duplicate(path.Child("name"), p.Name))
		}
		seen[p.Name] = true
		if g := group(p); g != "" {
			for _, msg := range validation.IsDNS1123Label(g) {
				errs = append(errs, field.Invalid(path.Child("name"), p.Name, msg+" (it names the pool's kwok nodes)"))
			}
			if g == "worker" || g == "node" {
				errs = append(errs, field.Invalid(path.Child("name"), p.Name, "is taken by the testbed's own nodes: choose another name"))
			}
		}
		if !p.Retired && p.NodeCPU.Sign() <= 0 {
			errs = append(errs, field.Invalid(path.Child("cpu"), p.NodeCPU.String(), "must be positive, such as 4 or 500m"))
		}
		if !p.Retired && p.NodeMemory.Sign() <= 0 {
			errs = append(errs, field.Invalid(path.Child("memory"), p.NodeMemory.String(), "must be positive, such as 16Gi"))
		}
		if p.Workers < 0 {
			errs = append(errs, field.Invalid(pathWorkers, p.Workers, fmt.Sprintf("pool %q: must not be negative", p.Name)))
		}
	}
	if len(errs) > 0 {
		return invalid(errs)
	}

	_, err := localtestbed.AddCluster(ctx, b.dir, localtestbed.ClusterSpec{Name: spec.Name, Region: spec.Region, SchedulerConfig: cloud.PackingSchedulerConfig})
	if errors.Is(err, localtestbed.ErrProfileCluster) {
		return invalid(field.ErrorList{field.Invalid(pathName, spec.Name, "is a cluster of the testbed's profile, not a cloud cluster: choose another name")})
	}
	if err != nil {
		return fmt.Errorf("failed to start cluster %q on the testbed in %s: %w", spec.Name, b.dir, err)
	}
	for _, p := range spec.Pools {
		// A name that is not one of the pool's workers has nothing to
		// delete; it is skipped, as the Cluster API backend skips a node
		// without a Machine.
		remove := slices.DeleteFunc(slices.Clone(p.Remove), func(node string) bool {
			_, ok := localtestbed.GroupWorkerNumber(spec.Name, group(p), node)
			return !ok
		})
		workers := int(p.Workers)
		if p.Retired {
			// Only lowered: a retired pool's size is not known. Its group
			// is gone with its last node.
			c, err := b.client(spec.Name)
			if err != nil {
				return err
			}
			nodes, err := groupNodes(ctx, c, spec.Name)
			if err != nil {
				return err
			}
			workers = min(workers, len(nodes[group(p)]))
		}
		size := localtestbed.NodeSize{CPU: p.NodeCPU, Memory: p.NodeMemory}
		if _, err := localtestbed.SetNodeGroup(ctx, b.dir, spec.Name, group(p), size, workers, remove); err != nil {
			return fmt.Errorf("failed to set the workers of pool %q of cluster %q on the testbed in %s: %w", p.Name, spec.Name, b.dir, err)
		}
	}
	return nil
}

// Status reports the cluster's processes, API server and nodes. Every
// node of the cluster is a worker. The kubeconfig is set once every
// process runs and the API server is ready.
func (b *Backend) Status(ctx context.Context, spec cloud.Spec) (cloud.Status, error) {
	if errs := validateName(spec); len(errs) > 0 {
		return cloud.Status{}, invalid(errs)
	}
	cs, err := localtestbed.GetClusterStatus(ctx, b.dir, spec.Name)
	switch {
	case errors.Is(err, localtestbed.ErrNotFound):
		return cloud.Status{Message: fmt.Sprintf("no testbed in %s: start one with 'meridian testbed up --dir %s'", b.dir, b.dir)}, nil
	case errors.Is(err, localtestbed.ErrClusterNotFound):
		return cloud.Status{Message: fmt.Sprintf("no cluster %q on the testbed in %s", spec.Name, b.dir)}, nil
	case err != nil:
		return cloud.Status{}, fmt.Errorf("failed to read cluster %q of the testbed in %s: %w", spec.Name, b.dir, err)
	case !cs.Added:
		return cloud.Status{Message: fmt.Sprintf("cluster %q is a cluster of the testbed's profile, not a cloud cluster: choose another %s", spec.Name, pathName)}, nil
	}

	st := cloud.Status{Exists: true, Workers: int32(cs.NodesTotal), ReadyWorkers: int32(cs.NodesReady)}
	var down []string
	for _, c := range cs.Components {
		if !c.Alive {
			down = append(down, c.Name)
		}
	}
	switch {
	case cs.Phase == localtestbed.PhaseStarting:
		st.Message = "starting: kwokctl is starting the cluster's processes"
		return st, nil
	case cs.Phase == localtestbed.PhaseFailed:
		st.Message = "failed to start (its logs are in the testbed's folder); Ensure starts it again"
		return st, nil
	case len(down) > 0:
		st.Message = fmt.Sprintf("not running: %s; Ensure starts the cluster again", strings.Join(down, ", "))
		return st, nil
	case cs.APIError != "":
		st.Message = "API server not ready: " + cs.APIError
		return st, nil
	}
	c, err := localtestbed.OpenCluster(b.dir, spec.Name)
	if err != nil {
		return cloud.Status{}, fmt.Errorf("failed to read the credentials of cluster %q: %w", spec.Name, err)
	}
	st.Ready, st.Kubeconfig = true, c.Kubeconfig
	cl, err := b.client(spec.Name)
	if err != nil {
		return cloud.Status{}, err
	}
	nodes, err := groupNodes(ctx, cl, spec.Name)
	if err != nil {
		return cloud.Status{}, err
	}
	st.Pools = pools(spec, nodes)
	if st.ReadyWorkers < spec.Workers() {
		st.Message = fmt.Sprintf("waiting for workers: %d of %d ready", st.ReadyWorkers, spec.Workers())
	}
	return st, nil
}

// Delete stops every process of the cluster and removes its folder, its
// state and its kubeconfig context. A cluster already gone is not an
// error.
func (b *Backend) Delete(ctx context.Context, spec cloud.Spec) error {
	if errs := validateName(spec); len(errs) > 0 {
		return invalid(errs)
	}
	b.mu.Lock()
	delete(b.clients, spec.Name)
	b.mu.Unlock()
	err := localtestbed.RemoveCluster(ctx, b.dir, spec.Name)
	if errors.Is(err, localtestbed.ErrProfileCluster) {
		return invalid(field.ErrorList{field.Invalid(pathName, spec.Name, "is a cluster of the testbed's profile, not a cloud cluster: 'meridian testbed down' stops it")})
	}
	if err != nil {
		return fmt.Errorf("failed to remove cluster %q from the testbed in %s: %w", spec.Name, b.dir, err)
	}
	return nil
}

// client is the one client of cluster name, made again when its
// kubeconfig changed.
func (b *Backend) client(name string) (client.Client, error) {
	c, err := localtestbed.OpenCluster(b.dir, name)
	if err != nil {
		return nil, fmt.Errorf("failed to read the credentials of cluster %q: %w", name, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if cc, ok := b.clients[name]; ok && bytes.Equal(cc.kubeconfig, c.Kubeconfig) {
		return cc.client, nil
	}
	cl, err := c.Client()
	if err != nil {
		return nil, fmt.Errorf("failed to create a client of cluster %q: %w", name, err)
	}
	b.clients[name] = clusterClient{kubeconfig: c.Kubeconfig, client: cl}
	return cl, nil
}

// groupNodes lists the workers of cluster by node group ("" for the
// workers of cloud.DefaultPool).
func groupNodes(ctx context.Context, c client.Client, cluster string) (map[string][]corev1.Node, error) {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("failed to list the nodes of cluster %q: %w", cluster, err)
	}
	out := map[string][]corev1.Node{}
	for _, n := range nodes.Items {
		g := n.Labels[localtestbed.LabelNodeGroup]
		if _, ok := localtestbed.GroupWorkerNumber(cluster, g, n.Name); ok {
			out[g] = append(out[g], n)
		}
	}
	return out, nil
}

// pools counts the workers of each of spec's pools, then of every other
// node group found, which is a pool whose flavor was removed.
func pools(spec cloud.Spec, nodes map[string][]corev1.Node) []cloud.PoolStatus {
	out := make([]cloud.PoolStatus, 0, len(spec.Pools))
	listed := map[string]bool{}
	count := func(name string, removed bool, group []corev1.Node) {
		ps := cloud.PoolStatus{Name: name, Removed: removed}
		for i := range group {
			n := &group[i]
			ps.Workers++
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue && !n.Spec.Unschedulable {
					ps.ReadyWorkers++
				}
			}
		}
		out = append(out, ps)
	}
	for _, p := range spec.Pools {
		listed[group(p)] = true
		if !p.Retired || len(nodes[group(p)]) > 0 {
			count(p.Name, p.Retired, nodes[group(p)])
		}
	}
	for _, g := range slices.Sorted(maps.Keys(nodes)) {
		if !listed[g] {
			name := g
			if g == "" {
				name = cloud.DefaultPool
			}
			count(name, true, nodes[g])
		}
	}
	return out
}

// validateName checks what every method needs: a name the testbed can
// give a cluster's folder.
func validateName(spec cloud.Spec) field.ErrorList {
	if spec.Name == "" {
		return field.ErrorList{field.Required(pathName, "the name of the testbed cluster")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(spec.Name) {
		errs = append(errs, field.Invalid(pathName, spec.Name, msg+" (it names a folder of the testbed)"))
	}
	if len(spec.Name) > localtestbed.MaxClusterNameLength {
		errs = append(errs, field.TooLong(pathName, spec.Name, localtestbed.MaxClusterNameLength))
	}
	if spec.Name == localtestbed.ManagementCluster {
		errs = append(errs, field.Invalid(pathName, spec.Name, "is the testbed's management cluster"))
	}
	return errs
}

func invalid(errs field.ErrorList) error {
	return fmt.Errorf("%w: %w", cloud.ErrInvalidSpec, errs.ToAggregate())
}
