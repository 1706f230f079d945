package clusterapi

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// ProviderOpenStack is the provider whose clusters Cluster API Provider
// OpenStack (CAPO) creates.
const ProviderOpenStack = "OpenStack"

// The OpenStack defaults.
const (
	// DefaultOpenStackCloudName is the entry of clouds.yaml used when
	// OpenStackOptions.CloudName is empty.
	DefaultOpenStackCloudName = "openstack"
	// DefaultOpenStackNodeCIDR is the subnet CAPO creates for the machines
	// when OpenStackOptions.NodeCIDR is empty.
	DefaultOpenStackNodeCIDR = "10.6.0.0/24"
)

// CloudsYAMLKey is the key of the credentials Secret that holds the
// clouds.yaml file, as CAPO's identityRef requires.
const CloudsYAMLKey = "clouds.yaml"

// openStackGroupVersion is the API the OpenStack objects are written in:
// CAPO's infrastructure.cluster.x-k8s.io/v1beta1, served from CAPO v0.10 on.
// CAPO's Go module is not available from the module proxy, so the objects
// are unstructured, with the field names of that API.
var openStackGroupVersion = schema.GroupVersion{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1"}

// OpenStackOptions configure clusters of provider OpenStack.
type OpenStackOptions struct {
	// CloudName is the entry of the clouds.yaml in the credentials Secret
	// that CAPO uses; DefaultOpenStackCloudName when empty.
	CloudName string
	// Regions maps Meridian regions (spec.region, lowercase) to OpenStack
	// region names such as "RegionOne". A region not in the map is used as
	// it is; a region mapped to "" leaves the region to clouds.yaml.
	Regions map[string]string
	// Image is the name of the Glance image of every machine; when empty,
	// the name image-builder gives its Ubuntu 24.04 image of the Kubernetes
	// version, "ubuntu-2404-kube-<version>".
	Image string
	// ControlPlaneFlavor is the flavor of the control plane machine; the
	// workers' flavor when empty.
	ControlPlaneFlavor string
	// SSHKeyName is the Nova key pair put on every machine; none when empty.
	SSHKeyName string
	// ExternalNetworkID is the ID of the Neutron network that gives the
	// floating IPs and the router's gateway; when empty, CAPO uses the only
	// external network there is.
	ExternalNetworkID string
	// NodeCIDR is the subnet CAPO creates for the machines;
	// DefaultOpenStackNodeCIDR when empty.
	NodeCIDR string
	// DNSNameservers are the name servers of that subnet; OpenStack's
	// default when empty.
	DNSNameservers []string
}

// openStack writes CAPO's OpenStackCluster and OpenStackMachineTemplates.
type openStack struct {
	opts OpenStackOptions
}

var _ infrastructure = &openStack{}

func newOpenStack(opts OpenStackOptions, kubernetesVersion string, path *field.Path) (*openStack, field.ErrorList) {
	if opts.CloudName == "" {
		opts.CloudName = DefaultOpenStackCloudName
	}
	if opts.Image == "" {
		opts.Image = "ubuntu-2404-kube-" + kubernetesVersion
	}
	if opts.NodeCIDR == "" {
		opts.NodeCIDR = DefaultOpenStackNodeCIDR
	}
	var errs field.ErrorList
	if _, _, err := net.ParseCIDR(opts.NodeCIDR); err != nil {
		errs = append(errs, field.Invalid(path.Child("NodeCIDR"), opts.NodeCIDR, "must be a CIDR such as "+DefaultOpenStackNodeCIDR))
	}
	for i, ns := range opts.DNSNameservers {
		if net.ParseIP(ns) == nil {
			errs = append(errs, field.Invalid(path.Child("DNSNameservers").Index(i), ns, "must be an IP address"))
		}
	}
	return &openStack{opts: opts}, errs
}

func (o *openStack) clusterKind() schema.GroupVersionKind {
	return openStackGroupVersion.WithKind("OpenStackCluster")
}

func (o *openStack) machineTemplateKind() schema.GroupVersionKind {
	return openStackGroupVersion.WithKind("OpenStackMachineTemplate")
}

// validate needs a flavor for every pool but retired ones and a
// credentials Secret whose clouds.yaml has the configured cloud.
func (o *openStack) validate(ctx context.Context, c client.Reader, spec cloud.Spec) error {
	var errs field.ErrorList
	for _, p := range spec.Pools {
		if p.Flavor != "" || p.Retired {
			continue
		}
		errs = append(errs, field.Required(cloud.PoolPath(p).Child("instanceType"), "OpenStack needs the Nova flavor of the worker nodes"))
	}
	if spec.CredentialsSecret == "" {
		errs = append(errs, field.Required(pathCredentials, "OpenStack needs a Secret with a "+CloudsYAMLKey+" key"))
		return invalid(errs)
	}
	secret := &corev1.Secret{}
	key := client.ObjectKey{Namespace: spec.Namespace, Name: spec.CredentialsSecret}
	err := c.Get(ctx, key, secret)
	switch {
	case apierrors.IsNotFound(err):
		errs = append(errs, field.Invalid(pathCredentials.Child("name"), spec.CredentialsSecret,
			fmt.Sprintf("no Secret %s: create it with a %s key", key, CloudsYAMLKey)))
	case err != nil:
		return fmt.Errorf("failed to read the credentials Secret %s: %w", key, err)
	default:
		errs = append(errs, o.validateCloudsYAML(secret)...)
	}
	if len(errs) > 0 {
		return invalid(errs)
	}
	return nil
}

// validateCloudsYAML checks that the Secret has the cloud CAPO will look
// for; it reads the file's cloud names only.
func (o *openStack) validateCloudsYAML(secret *corev1.Secret) field.ErrorList {
	path := pathCredentials.Child("name")
	data, ok := secret.Data[CloudsYAMLKey]
	if !ok {
		return field.ErrorList{field.Invalid(path, secret.Name,
			fmt.Sprintf("Secret %s/%s has no %s key (keys: %v)", secret.Namespace, secret.Name, CloudsYAMLKey, slices.Sorted(maps.Keys(secret.Data))))}
	}
	var file struct {
		Clouds map[string]any `json:"clouds"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		return field.ErrorList{field.Invalid(path, secret.Name,
			fmt.Sprintf("the %s of Secret %s/%s is not YAML: %v", CloudsYAMLKey, secret.Namespace, secret.Name, err))}
	}
	if _, ok := file.Clouds[o.opts.CloudName]; !ok {
		return field.ErrorList{field.Invalid(path, secret.Name,
			fmt.Sprintf("the %s of Secret %s/%s has no cloud %q (clouds: %v)", CloudsYAMLKey, secret.Namespace, secret.Name, o.opts.CloudName, slices.Sorted(maps.Keys(file.Clouds))))}
	}
	return nil
}

// cluster is the OpenStackCluster: the credentials by reference, a network
// and router CAPO creates, security groups that let the nodes talk, and the
// API server's floating IP.
func (o *openStack) cluster(spec cloud.Spec, n names) client.Object {
	identity := map[string]any{
		"name":      spec.CredentialsSecret,
		"cloudName": o.opts.CloudName,
	}
	if region := o.region(spec.Region); region != "" {
		identity["region"] = region
	}
	subnet := map[string]any{"cidr": o.opts.NodeCIDR}
	if len(o.opts.DNSNameservers) > 0 {
		subnet["dnsNameservers"] = anySlice(o.opts.DNSNameservers)
	}
	s := map[string]any{
		"identityRef":           identity,
		"managedSubnets":        []any{subnet},
		"managedSecurityGroups": map[string]any{"allowAllInClusterTraffic": true},
	}
	if o.opts.ExternalNetworkID != "" {
		s["externalNetwork"] = map[string]any{"id": o.opts.ExternalNetworkID}
	}
	if spec.FloatingIP != "" {
		s["apiServerFloatingIP"] = spec.FloatingIP
	}
	return newUnstructured(o.clusterKind(), n.key(n.cluster), s)
}

// region is the OpenStack name of a Meridian region.
func (o *openStack) region(region string) string {
	if name, ok := o.opts.Regions[region]; ok {
		return name
	}
	return region
}

// machineTemplate is an OpenStackMachineTemplate of the flavor and image.
// The control plane's flavor is the configured one, or the first pool's.
func (o *openStack) machineTemplate(spec cloud.Spec, key client.ObjectKey, flavor string, controlPlane bool) client.Object {
	if controlPlane {
		switch {
		case o.opts.ControlPlaneFlavor != "":
			flavor = o.opts.ControlPlaneFlavor
		case len(spec.Pools) > 0:
			flavor = spec.Pools[0].Flavor
		}
	}
	machine := map[string]any{
		"flavor": flavor,
		"image":  map[string]any{"filter": map[string]any{"name": o.opts.Image}},
	}
	if o.opts.SSHKeyName != "" {
		machine["sshKeyName"] = o.opts.SSHKeyName
	}
	return newUnstructured(o.machineTemplateKind(), key, map[string]any{
		"template": map[string]any{"spec": machine},
	})
}

// nodeRegistration names nodes as Nova does and leaves node addresses to
// the OpenStack cloud controller manager; the provider ID is the one CAPO
// gives the Machine (no region, as the machines carry no identityRef of
// their own), so that Cluster API finds the node of each Machine.
func (o *openStack) nodeRegistration() bootstrapv1.NodeRegistrationOptions {
	return bootstrapv1.NodeRegistrationOptions{
		Name: "{{ local_hostname }}",
		KubeletExtraArgs: []bootstrapv1.Arg{
			{Name: "cloud-provider", Value: ptr.To("external")},
			{Name: "provider-id", Value: ptr.To("openstack:///{{ instance_id }}")},
		},
	}
}

func (o *openStack) controllerManagerArgs() []bootstrapv1.Arg {
	return []bootstrapv1.Arg{{Name: "cloud-provider", Value: ptr.To("external")}}
}

// newUnstructured is an object of kind gvk named key with the given spec.
func newUnstructured(gvk schema.GroupVersionKind, key client.ObjectKey, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(key.Namespace)
	u.SetName(key.Name)
	return u
}

// anySlice is ss as the []any unstructured objects hold.
func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
