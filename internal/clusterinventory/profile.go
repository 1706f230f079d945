package clusterinventory

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// CRD is the published ClusterProfile CRD (crd/SOURCE.md).
//
//go:embed crd/multicluster.x-k8s.io_clusterprofiles.yaml
var CRD []byte

// Manager is the name Meridian gives itself as a cluster manager.
const Manager = "meridian"

// KubeconfigSecretReader is the access provider whose credentials are a
// kubeconfig in a Secret of the consumer's cluster (the API's
// kubeconfig-secretreader plugin): the exec extension of its cluster names
// the Secret (name, namespace, key, context).
const KubeconfigSecretReader = "kubeconfig-secretreader"

// secretRef is the exec extension's config of KubeconfigSecretReader.
type secretRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Key       string `json:"key"`
	Context   string `json:"context,omitempty"`
}

// Connection is what Meridian knows of how to reach a member, for its
// profile: the server and CA of its kubeconfig, and where the kubeconfig
// is.
type Connection struct {
	Server                   string
	CertificateAuthorityData []byte
	TLSServerName            string
	Secret                   multiclusterv1alpha1.SecretReference
}

// Property names of a member's profile beyond the API's well-known one.
const (
	propertyClusterID = "cluster.clusterset.k8s.io"
	propertyPrefix    = "multicluster.meridian.dev/"
)

// ProfileOf is the ClusterProfile Meridian keeps in namespace for the
// member c: its version, where it is, its capacity and health, and an
// access provider that leads consumers to its kubeconfig Secret; conn is
// nil while the kubeconfig is not readable.
func ProfileOf(c *multiclusterv1alpha1.Cluster, namespace string, conn *Connection) *ClusterProfile {
	p := &ClusterProfile{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "ClusterProfile"},
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: namespace, Labels: map[string]string{
			LabelClusterManager: Manager,
		}},
		Spec: ClusterProfileSpec{DisplayName: c.Name, ClusterManager: ClusterManager{Name: Manager}},
	}
	observed := metav1.Time{}
	if c.Status.LastHeartbeatTime != nil {
		observed = *c.Status.LastHeartbeatTime
	}
	p.Status.Version.Kubernetes = c.Status.KubernetesVersion
	if ready := meta.FindStatusCondition(c.Status.Conditions, multiclusterv1alpha1.ClusterReady); ready != nil {
		p.Status.Conditions = []metav1.Condition{{
			Type: ConditionControlPlaneHealthy, Status: ready.Status, Reason: ready.Reason, Message: ready.Message,
			LastTransitionTime: ready.LastTransitionTime, ObservedGeneration: c.Generation,
		}}
	}
	add := func(name, value string) {
		if value != "" {
			p.Status.Properties = append(p.Status.Properties, Property{Name: name, Value: value, LastObservedTime: observed})
		}
	}
	add(propertyClusterID, c.Annotations[multiclusterv1alpha1.AnnotationClusterID])
	add(propertyPrefix+"region", c.Spec.Region)
	add(propertyPrefix+"zone", c.Spec.Zone)
	add(propertyPrefix+"provider", c.Spec.Provider)
	add(propertyPrefix+"grid-zone", c.Spec.GridZone)
	add(propertyPrefix+"jurisdiction", c.Spec.Jurisdiction)
	add(propertyPrefix+"cloud", strconv.FormatBool(c.Spec.Cloud))
	if c.Status.NodeCount > 0 {
		add(propertyPrefix+"nodes", strconv.Itoa(int(c.Status.NodeCount)))
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := c.Status.Allocatable[r]; ok {
			add(propertyPrefix+"allocatable-"+string(r), q.String())
		}
		if q, ok := c.Status.Allocated[r]; ok {
			add(propertyPrefix+"allocated-"+string(r), q.String())
		}
	}
	slices.SortFunc(p.Status.Properties, func(a, b Property) int { return strings.Compare(a.Name, b.Name) })
	if conn != nil {
		ext, _ := json.Marshal(secretRef{Name: conn.Secret.Name, Namespace: conn.Secret.Namespace, Key: conn.Secret.Key})
		p.Status.AccessProviders = []AccessProvider{{
			Name: KubeconfigSecretReader,
			Cluster: clientcmdv1.Cluster{
				Server:                   conn.Server,
				CertificateAuthorityData: conn.CertificateAuthorityData,
				TLSServerName:            conn.TLSServerName,
				Extensions:               []clientcmdv1.NamedExtension{{Name: ExecExtension, Extension: runtime.RawExtension{Raw: ext}}},
			},
		}}
	}
	return p
}

// Errors of ClusterOf.
var (
	// ErrNoUsableAccessProvider means no access provider of the
	// ClusterProfile is one Meridian can follow.
	ErrNoUsableAccessProvider = errors.New("no access provider Meridian can use")
)

// ClusterOf is the Cluster Meridian makes of another cluster manager's
// ClusterProfile: reached with the kubeconfig Secret its
// kubeconfig-secretreader access provider names, in the profile's own
// namespace. Any other provider is refused naming the ones it has and
// the one Meridian reads; the access providers are read before the
// deprecated credential providers, as the API says.
func ClusterOf(p *ClusterProfile) (*multiclusterv1alpha1.Cluster, error) {
	var names []string
	for _, a := range append(slices.Clone(p.Status.AccessProviders), p.Status.CredentialProviders...) {
		names = append(names, a.Name)
		if a.Name != KubeconfigSecretReader {
			continue
		}
		ref, err := secretOf(a)
		if err != nil {
			return nil, fmt.Errorf("ClusterProfile %s/%s: access provider %s: %w", p.Namespace, p.Name, a.Name, err)
		}
		// The profile's own namespace only: a profile must not lead
		// Meridian to credentials its author may not read.
		switch ref.Namespace {
		case "":
			ref.Namespace = p.Namespace
		case p.Namespace:
		default:
			return nil, fmt.Errorf("ClusterProfile %s/%s: access provider %s names Secret %s/%s, outside the profile's namespace; Meridian reads credentials from the profile's namespace only", p.Namespace, p.Name, a.Name, ref.Namespace, ref.Name)
		}
		c := &multiclusterv1alpha1.Cluster{
			TypeMeta: metav1.TypeMeta{APIVersion: multiclusterv1alpha1.GroupVersion.String(), Kind: "Cluster"},
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Labels: map[string]string{
				LabelClusterManager: p.Spec.ClusterManager.Name,
			}},
			Spec: multiclusterv1alpha1.ClusterSpec{KubeconfigSecretRef: multiclusterv1alpha1.SecretReference{Name: ref.Name, Namespace: ref.Namespace, Key: ref.Key}},
		}
		for _, pr := range p.Status.Properties {
			switch pr.Name {
			case propertyPrefix + "region":
				c.Spec.Region = pr.Value
			case propertyPrefix + "zone":
				c.Spec.Zone = pr.Value
			case propertyPrefix + "provider":
				c.Spec.Provider = pr.Value
			case propertyPrefix + "grid-zone":
				c.Spec.GridZone = pr.Value
			case propertyPrefix + "jurisdiction":
				c.Spec.Jurisdiction = pr.Value
			}
		}
		return c, nil
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: ClusterProfile %s/%s has no access provider; Meridian reads %s", ErrNoUsableAccessProvider, p.Namespace, p.Name, KubeconfigSecretReader)
	}
	return nil, fmt.Errorf("%w: ClusterProfile %s/%s offers %s; Meridian reads %s (a kubeconfig Secret named in the cluster's %s extension)",
		ErrNoUsableAccessProvider, p.Namespace, p.Name, strings.Join(names, ", "), KubeconfigSecretReader, ExecExtension)
}

// secretOf reads the Secret reference of a kubeconfig-secretreader access
// provider.
func secretOf(a AccessProvider) (secretRef, error) {
	for _, e := range a.Cluster.Extensions {
		if e.Name != ExecExtension {
			continue
		}
		var ref secretRef
		if err := json.Unmarshal(e.Extension.Raw, &ref); err != nil {
			return ref, fmt.Errorf("extension %s is not {name, namespace, key, context}: %w", ExecExtension, err)
		}
		if ref.Name == "" || ref.Key == "" {
			return ref, fmt.Errorf("extension %s must name the Secret (name) and its key (key)", ExecExtension)
		}
		if ref.Context != "" {
			return ref, fmt.Errorf("extension %s names context %q: Meridian reads a kubeconfig's current context only", ExecExtension, ref.Context)
		}
		return ref, nil
	}
	return secretRef{}, fmt.Errorf("its cluster has no %s extension naming the Secret", ExecExtension)
}
