package cloud

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Spec is the cloud cluster a CloudProvisioner asks for.
type Spec struct {
	// Name is the cluster's name, which is also the name of the Meridian
	// Cluster that joins it.
	Name string
	// Namespace is where the backend keeps the objects it writes to the
	// management cluster and where the credentials Secret lives.
	Namespace string
	// Provider and Region say where the cluster runs; FloatingIP is the
	// address given to its API server, when the provider needs one.
	Provider   string
	Region     string
	FloatingIP string
	// Pools are the cluster's node pools, one per flavor.
	Pools []Pool
	// CredentialsSecret names the Secret in Namespace that holds the cloud
	// credentials; empty for backends that need none.
	CredentialsSecret string
	// Labels are set on every object the backend writes.
	Labels map[string]string
}

// DefaultPool names the one node pool of a cloud cluster created before
// node pools (from the CloudProvisioner's nodeSize, since dropped; the
// Cluster API backend's <cluster>-md-0). No flavor has the name, so such a
// pool is retired: drained and removed once the cluster is reconciled.
const DefaultPool = "0"

// Pool is one node pool of a cloud cluster: workers of one flavor.
type Pool struct {
	// Name names the pool's objects and is the value of the nodes'
	// LabelNodePool label.
	Name string
	// Flavor is the provider's instance type of a worker, NodeCPU and
	// NodeMemory its size.
	Flavor     string
	NodeCPU    resource.Quantity
	NodeMemory resource.Quantity
	// Workers is how many worker nodes the pool should have.
	Workers int32
	// Remove names worker nodes of the pool to remove first when Workers
	// is below the number the pool has.
	Remove []string
	// Retired marks a pool whose flavor was removed from the
	// CloudProvisioner, which a backend reported (PoolStatus.Removed): the
	// backend only lowers its workers to Workers, removing Remove first,
	// never adds one, and deletes the pool once it has none. Its size and
	// flavor are not known and not needed.
	Retired bool
}

// PoolPath is the CloudProvisioner field a pool comes from, which errors
// name: its entry of flavors.
func PoolPath(p Pool) *field.Path {
	return field.NewPath("spec", "flavors").Key(p.Name)
}

// Workers is how many worker nodes the spec's pools should have together.
func (s Spec) Workers() int32 {
	var n int32
	for _, p := range s.Pools {
		n += p.Workers
	}
	return n
}

// PoolStatus is what a backend reports about one node pool.
type PoolStatus struct {
	Name string
	// Workers is how many worker nodes of the pool exist, ready or not,
	// and ReadyWorkers how many of them are ready.
	Workers      int32
	ReadyWorkers int32
	// Removed is true for a pool the backend found that the spec does not
	// list: its flavor was removed. The controller drains its nodes, then
	// asks for it as Retired with no workers, and the backend deletes it.
	Removed bool
}

// Status is what a backend reports about a cluster.
type Status struct {
	// Exists is false when the cluster was never created or is fully gone.
	Exists bool
	// Ready is true once the cluster's API server answers and Kubeconfig
	// reaches it.
	Ready bool
	// Kubeconfig reaches the cluster's API server with credentials for
	// Meridian; set when Ready.
	Kubeconfig []byte
	// Workers is how many worker nodes exist, ready or not, and
	// ReadyWorkers how many of them are ready, over all pools.
	Workers      int32
	ReadyWorkers int32
	// Pools are the workers of each pool of the spec, then of every other
	// pool the backend found for the cluster (Removed), so that no pool
	// runs, and is paid for, unreported.
	Pools []PoolStatus
	// Message says what the backend is waiting for, in words.
	Message string
}

// Backend creates, scales and removes cloud clusters.
type Backend interface {
	// Ensure creates the cluster when it does not exist and sets the worker
	// count of each pool of spec, removing the pool's Remove first when it
	// shrinks. A Retired pool is only shrunk, and deleted once it has no
	// workers. Pools the spec does not list are left as they are: their
	// nodes are drained before they go.
	Ensure(ctx context.Context, spec Spec) error
	// Status reports the cluster spec names.
	Status(ctx context.Context, spec Spec) (Status, error)
	// Delete removes the cluster and everything the backend made for it.
	// Status reports Exists false once it is gone.
	Delete(ctx context.Context, spec Spec) error
}

// ErrInvalidSpec is returned, wrapped with the field at fault, when a
// backend cannot act on a Spec.
var ErrInvalidSpec = errors.New("invalid cloud cluster spec")
