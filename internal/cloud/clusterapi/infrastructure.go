package clusterapi

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// infrastructure is what one Cluster API infrastructure provider adds to
// the core objects: the infrastructure cluster, the machine templates, and
// the kubeadm settings its machines need. One implementation per provider;
// New registers them by cloud.Spec provider name.
type infrastructure interface {
	// validate reports, as an error wrapping cloud.ErrInvalidSpec, what of
	// spec the provider cannot act on. It may read the credentials Secret
	// to check it, never to copy it.
	validate(ctx context.Context, c client.Reader, spec cloud.Spec) error
	// clusterKind and machineTemplateKind are the kinds of the objects
	// below; the Cluster and the templates reference them by group and kind.
	clusterKind() schema.GroupVersionKind
	machineTemplateKind() schema.GroupVersionKind
	// cluster is the infrastructure cluster of spec, named n.cluster.
	cluster(spec cloud.Spec, n names) client.Object
	// machineTemplate is the template, named key, of spec's control plane
	// machines (controlPlane true) or of the workers of one pool, of the
	// provider's instance type flavor.
	machineTemplate(spec cloud.Spec, key client.ObjectKey, flavor string, controlPlane bool) client.Object
	// nodeRegistration is how kubeadm registers the provider's machines as
	// nodes, and controllerManagerArgs what kube-controller-manager needs
	// for the provider.
	nodeRegistration() bootstrapv1.NodeRegistrationOptions
	controllerManagerArgs() []bootstrapv1.Arg
}
