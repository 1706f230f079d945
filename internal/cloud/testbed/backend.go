package testbed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meridian-dev/meridian/internal/cloud"
	localtestbed "github.com/meridian-dev/meridian/internal/testbed"
)

// Backend starts cloud clusters as members of the testbed in one folder.
// It is safe for concurrent use.
type Backend struct {
	dir string
}

var _ cloud.Backend = &Backend{}

// New returns a backend acting on the testbed in dir, which `meridian
// testbed up` (or testbed.Up) started.
func New(dir string) *Backend {
	return &Backend{dir: dir}
}

// The CloudProvisioner fields a cloud.Spec comes from, which errors name so
// that a user knows what to change.
var (
	pathName    = field.NewPath("spec", "cloudClusterName")
	pathRegion  = field.NewPath("spec", "region")
	pathCPU     = field.NewPath("spec", "nodeSize", "cpu")
	pathMemory  = field.NewPath("spec", "nodeSize", "memory")
	pathWorkers = field.NewPath("status", "desiredNodes")
)

// Ensure starts the cluster when the testbed lacks it or it is broken,
// then gives it spec.Workers worker nodes. The workers spec.Remove names
// are deleted first, even when the cluster grows, and their names are not
// given again (testbed.SetNodes). It blocks while the cluster starts, a
// few seconds.
func (b *Backend) Ensure(ctx context.Context, spec cloud.Spec) error {
	errs := validateName(spec)
	if spec.Region != "" {
		for _, msg := range validation.IsDNS1123Label(spec.Region) {
			errs = append(errs, field.Invalid(pathRegion, spec.Region, msg+" (it labels the testbed's nodes)"))
		}
	}
	if spec.NodeCPU.Sign() <= 0 {
		errs = append(errs, field.Invalid(pathCPU, spec.NodeCPU.String(), "must be positive, such as 4 or 500m"))
	}
	if spec.NodeMemory.Sign() <= 0 {
		errs = append(errs, field.Invalid(pathMemory, spec.NodeMemory.String(), "must be positive, such as 16Gi"))
	}
	if spec.Workers < 0 {
		errs = append(errs, field.Invalid(pathWorkers, spec.Workers, "must not be negative"))
	}
	if len(errs) > 0 {
		return invalid(errs)
	}

	_, err := localtestbed.AddCluster(ctx, b.dir, localtestbed.ClusterSpec{Name: spec.Name, Region: spec.Region})
	if errors.Is(err, localtestbed.ErrProfileCluster) {
		return invalid(field.ErrorList{field.Invalid(pathName, spec.Name, "is a cluster of the testbed's profile, not a cloud cluster: choose another name")})
	}
	if err != nil {
		return fmt.Errorf("failed to start cluster %q on the testbed in %s: %w", spec.Name, b.dir, err)
	}
	// A name that is not one of the cluster's workers has nothing to
	// delete; it is skipped, as the Cluster API backend skips a node
	// without a Machine.
	remove := slices.DeleteFunc(slices.Clone(spec.Remove), func(node string) bool {
		_, ok := localtestbed.WorkerNumber(spec.Name, node)
		return !ok
	})
	size := localtestbed.NodeSize{CPU: spec.NodeCPU, Memory: spec.NodeMemory}
	if _, err := localtestbed.SetNodes(ctx, b.dir, spec.Name, size, int(spec.Workers), remove); err != nil {
		return fmt.Errorf("failed to set the workers of cluster %q on the testbed in %s: %w", spec.Name, b.dir, err)
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
	if st.ReadyWorkers < spec.Workers {
		st.Message = fmt.Sprintf("waiting for workers: %d of %d ready", st.ReadyWorkers, spec.Workers)
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
	err := localtestbed.RemoveCluster(ctx, b.dir, spec.Name)
	if errors.Is(err, localtestbed.ErrProfileCluster) {
		return invalid(field.ErrorList{field.Invalid(pathName, spec.Name, "is a cluster of the testbed's profile, not a cloud cluster: 'meridian testbed down' stops it")})
	}
	if err != nil {
		return fmt.Errorf("failed to remove cluster %q from the testbed in %s: %w", spec.Name, b.dir, err)
	}
	return nil
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
