package clusterapi

import (
	"fmt"
	"net"
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// FieldManager is the server-side apply field manager of every object the
// backend writes.
const FieldManager = "meridian"

// DefaultKubernetesVersion is the Kubernetes version of the clusters the
// backend creates when Options.KubernetesVersion is empty.
const DefaultKubernetesVersion = "v1.36.3"

// The networks of a cluster when Options leave them empty: the pod and
// service ranges of Cluster API's quick start.
var (
	DefaultPodCIDRs     = []string{"192.168.0.0/16"}
	DefaultServiceCIDRs = []string{"10.96.0.0/12"}
)

// Options configure what the backend writes beyond what a cloud.Spec says.
type Options struct {
	// KubernetesVersion of the control plane and the workers, with its
	// leading "v"; DefaultKubernetesVersion when empty.
	KubernetesVersion string
	// PodCIDRs and ServiceCIDRs are the cluster's networks
	// (Cluster.spec.clusterNetwork); DefaultPodCIDRs and
	// DefaultServiceCIDRs when empty.
	PodCIDRs     []string
	ServiceCIDRs []string
	// OpenStack configures clusters of provider OpenStack.
	OpenStack OpenStackOptions
}

// Backend writes Cluster API objects for the cloud clusters Meridian asks
// for. It is safe for concurrent use by clusters of different names.
type Backend struct {
	client client.Client
	opts   Options
	infras map[string]infrastructure
}

var _ cloud.Backend = &Backend{}

// versionPattern is the form of a Kubernetes release that kubeadm and the
// machine images are named by.
var versionPattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// New returns a backend that writes with c into the management cluster.
// c's scheme needs only the core Kubernetes types. It fails when an option
// is invalid, naming the option.
func New(c client.Client, opts Options) (*Backend, error) {
	if opts.KubernetesVersion == "" {
		opts.KubernetesVersion = DefaultKubernetesVersion
	}
	if len(opts.PodCIDRs) == 0 {
		opts.PodCIDRs = DefaultPodCIDRs
	}
	if len(opts.ServiceCIDRs) == 0 {
		opts.ServiceCIDRs = DefaultServiceCIDRs
	}
	var errs field.ErrorList
	if !versionPattern.MatchString(opts.KubernetesVersion) {
		errs = append(errs, field.Invalid(field.NewPath("KubernetesVersion"), opts.KubernetesVersion, "must be a Kubernetes release such as "+DefaultKubernetesVersion))
	}
	errs = append(errs, validateCIDRs(field.NewPath("PodCIDRs"), opts.PodCIDRs)...)
	errs = append(errs, validateCIDRs(field.NewPath("ServiceCIDRs"), opts.ServiceCIDRs)...)
	openstack, osErrs := newOpenStack(opts.OpenStack, opts.KubernetesVersion, field.NewPath("OpenStack"))
	errs = append(errs, osErrs...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid Cluster API backend options: %w", errs.ToAggregate())
	}
	return &Backend{
		client: c,
		opts:   opts,
		infras: map[string]infrastructure{ProviderOpenStack: openstack},
	}, nil
}

func validateCIDRs(path *field.Path, cidrs []string) field.ErrorList {
	var errs field.ErrorList
	for i, cidr := range cidrs {
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			errs = append(errs, field.Invalid(path.Index(i), cidr, "must be a CIDR such as 10.0.0.0/16"))
		}
	}
	return errs
}
