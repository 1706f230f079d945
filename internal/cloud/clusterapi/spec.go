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

// workersSuffix names the MachineDeployment and its templates. Its length
// bounds cluster names: the MachineDeployment's name is also the value of
// the deployment-name label of its Machines, at most 63 characters.
const workersSuffix = "-md-0"

// maxNameLength is the longest cluster name whose MachineDeployment name
// is still a label value.
const maxNameLength = validation.LabelValueMaxLength - len(workersSuffix)

// names are the names of one cluster's objects, all derived from the
// cluster's name, so that they are found again after a restart.
type names struct {
	namespace string
	// cluster names the Cluster and the infrastructure cluster.
	cluster string
	// controlPlane names the KubeadmControlPlane and its machine template.
	controlPlane string
	// workers names the MachineDeployment, its KubeadmConfigTemplate and
	// its machine template.
	workers string
	// kubeconfig names the Secret Cluster API writes the admin kubeconfig
	// to.
	kubeconfig string
}

func namesOf(spec cloud.Spec) names {
	return names{
		namespace:    spec.Namespace,
		cluster:      spec.Name,
		controlPlane: spec.Name + "-control-plane",
		workers:      spec.Name + workersSuffix,
		kubeconfig:   spec.Name + "-kubeconfig",
	}
}

func (n names) key(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: n.namespace, Name: name}
}

// The CloudProvisioner fields a cloud.Spec comes from, which errors name so
// that a user knows what to change.
var (
	pathName        = field.NewPath("spec", "cloudClusterName")
	pathNamespace   = field.NewPath("metadata", "namespace")
	pathProvider    = field.NewPath("spec", "provider")
	pathFlavor      = field.NewPath("spec", "nodeSize", "flavor")
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
			maxNameLength, spec.Name+workersSuffix, validation.LabelValueMaxLength)))
	default:
		for _, msg := range validation.IsDNS1123Label(spec.Name) {
			errs = append(errs, field.Invalid(pathName, spec.Name, msg+" (Cluster API cluster names become host names)"))
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
