package clusterapi

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// workersInfix names a pool's MachineDeployment and its templates,
// <cluster>-md-<pool>. Its length bounds cluster and pool names: the
// MachineDeployment's name is also the value of the deployment-name label
// of its Machines, at most 63 characters.
const workersInfix = "-md-"

// maxNameLength is the longest cluster name whose MachineDeployment name
// is still a label value with the one-pool name cloud.DefaultPool; longer
// pool names are checked with the cluster's name (validatePools).
const maxNameLength = validation.LabelValueMaxLength - len(workersInfix) - len(cloud.DefaultPool)

// names are the names of one cluster's objects, all derived from the
// cluster's name, so that they are found again after a restart.
type names struct {
	namespace string
	// cluster names the Cluster and the infrastructure cluster.
	cluster string
	// controlPlane names the KubeadmControlPlane and its machine template.
	controlPlane string
	// kubeconfig names the Secret Cluster API writes the admin kubeconfig
	// to.
	kubeconfig string
}

func namesOf(spec cloud.Spec) names {
	return names{
		namespace:    spec.Namespace,
		cluster:      spec.Name,
		controlPlane: spec.Name + "-control-plane",
		kubeconfig:   spec.Name + "-kubeconfig",
	}
}

// workers names a pool's MachineDeployment, its KubeadmConfigTemplate and
// its machine template.
func (n names) workers(pool string) string { return n.cluster + workersInfix + pool }

func (n names) key(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: n.namespace, Name: name}
}

// The CloudProvisioner fields a cloud.Spec comes from, which errors name so
// that a user knows what to change.
var (
	pathName        = field.NewPath("spec", "cloudClusterName")
	pathNamespace   = field.NewPath("metadata", "namespace")
	pathProvider    = field.NewPath("spec", "provider")
	pathFlavors     = field.NewPath("spec", "flavors")
	pathCredentials = field.NewPath("spec", "credentialsSecretRef")
	pathWorkers     = field.NewPath("status", "desiredNodes")
)

// validateIdentity checks what every method needs: a name and namespace
// the objects can have.
func validateIdentity(spec cloud.Spec) field.ErrorList {
	var errs field.ErrorList
	if spec.Namespace == "" {
		errs = append(errs, field.Required(pathNamespace, "the namespace of the Cluster API objects"))
	}
	switch {
	case spec.Name == "":
		errs = append(errs, field.Required(pathName, "the name of the Cluster API Cluster"))
	case len(spec.Name) > maxNameLength:
		errs = append(errs, field.Invalid(pathName, spec.Name, fmt.Sprintf("must be at most %d characters, so that the MachineDeployment name %s is a label value (at most %d)",
			maxNameLength, spec.Name+workersInfix+cloud.DefaultPool, validation.LabelValueMaxLength)))
	default:
		for _, msg := range validation.IsDNS1123Label(spec.Name) {
			errs = append(errs, field.Invalid(pathName, spec.Name, msg+" (Cluster API cluster names become host names)"))
		}
	}
	return errs
}

// validatePools checks what Ensure needs of every pool: a name that makes
// the MachineDeployment's name a label value, a unique one, and a worker
// count of 0 or more.
func validatePools(spec cloud.Spec) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, p := range spec.Pools {
		path := cloud.PoolPath(p)
		md := spec.Name + workersInfix + p.Name
		switch {
		case p.Name == "":
			errs = append(errs, field.Required(pathFlavors.Index(i).Child("name"), "a node pool needs a name"))
		case seen[p.Name]:
			errs = append(errs, field.Duplicate(path.Child("name"), p.Name))
		case len(md) > validation.LabelValueMaxLength:
			errs = append(errs, field.Invalid(path.Child("name"), p.Name, fmt.Sprintf("with cluster name %q makes the MachineDeployment name %s longer than %d characters", spec.Name, md, validation.LabelValueMaxLength)))
		default:
			for _, msg := range validation.IsDNS1123Label(p.Name) {
				errs = append(errs, field.Invalid(path.Child("name"), p.Name, msg))
			}
		}
		seen[p.Name] = true
		if p.Workers < 0 {
			errs = append(errs, field.Invalid(pathWorkers, p.Workers, fmt.Sprintf("pool %q: must be 0 or more", p.Name)))
		}
	}
	return errs
}

// infrastructureFor returns the provider of spec after checking the spec's
// name and provider.
func (b *Backend) infrastructureFor(spec cloud.Spec) (infrastructure, error) {
	errs := validateIdentity(spec)
	infra, ok := b.infras[spec.Provider]
	if !ok {
		errs = append(errs, field.NotSupported(pathProvider, spec.Provider, slices.Sorted(maps.Keys(b.infras))))
	}
	if len(errs) > 0 {
		return nil, invalid(errs)
	}
	return infra, nil
}

// invalid wraps errs into an error that is cloud.ErrInvalidSpec.
func invalid(errs field.ErrorList) error {
	return fmt.Errorf("%w: %w", cloud.ErrInvalidSpec, errs.ToAggregate())
}
