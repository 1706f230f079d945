package testbed

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/join"
	"github.com/meridian-dev/meridian/internal/manifest"
)

// Where and how members are registered in the management cluster.
const (
	// Namespace holds the members' kubeconfig Secrets.
	Namespace = "meridian-system"
	// KubeconfigKey is the key of a kubeconfig Secret's data.
	KubeconfigKey = "kubeconfig"
	// Provider is every testbed Cluster's spec.provider.
	Provider = "Testbed"
)

// KubeconfigSecretName is the name of the Secret holding a member's
// kubeconfig (meridian join's name for it).
func KubeconfigSecretName(cluster string) string { return join.SecretName(cluster) }

// clusterObject returns the Cluster that registers a member: where to find
// its kubeconfig, where it is, and the latencies the profile declares,
// nearest first.
func clusterObject(testbed string, p *Profile, c *ClusterProfile) *multiclusterv1alpha1.Cluster {
	labels := map[string]string{LabelTestbed: testbed}
	for k, v := range c.Labels {
		labels[k] = v
	}
	obj := &multiclusterv1alpha1.Cluster{
		TypeMeta: metav1.TypeMeta{
			APIVersion: multiclusterv1alpha1.GroupVersion.String(),
			Kind:       "Cluster",
		},
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Labels: labels},
		Spec: multiclusterv1alpha1.ClusterSpec{
			KubeconfigSecretRef: multiclusterv1alpha1.SecretReference{
				Name:      KubeconfigSecretName(c.Name),
				Namespace: Namespace,
				Key:       KubeconfigKey,
			},
			Region:      c.Region,
			Zone:        c.Zone,
			Provider:    Provider,
			GridZone:    c.GridZone,
			Coordinates: c.Coordinates,
		},
	}
	for _, other := range p.Clusters {
		if rtt, ok := p.Latency(c.Name, other.Name); ok && other.Name != c.Name {
			obj.Spec.Latencies = append(obj.Spec.Latencies, multiclusterv1alpha1.ClusterLatency{
				Cluster: multiclusterv1alpha1.ClusterName(other.Name),
				RTT:     metav1.Duration{Duration: rtt},
			})
		}
	}
	sort.SliceStable(obj.Spec.Latencies, func(i, j int) bool {
		return obj.Spec.Latencies[i].RTT.Duration < obj.Spec.Latencies[j].RTT.Duration
	})
	return obj
}

func kubeconfigSecret(testbed, cluster string, kubeconfig []byte) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      KubeconfigSecretName(cluster),
			Namespace: Namespace,
			Labels:    map[string]string{LabelTestbed: testbed, LabelCluster: cluster},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{KubeconfigKey: kubeconfig},
	}
}

// register applies the namespace, then each member's kubeconfig Secret and
// Cluster, in the management cluster.
func register(ctx context.Context, c client.Client, testbed string, p *Profile, kubeconfigs map[string][]byte) error {
	ns := &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: Namespace},
	}
	if err := applyTyped(ctx, c, ns); err != nil {
		return fmt.Errorf("failed to apply namespace %s: %w", Namespace, err)
	}
	for i := range p.Clusters {
		m := &p.Clusters[i]
		if err := applyTyped(ctx, c, kubeconfigSecret(testbed, m.Name, kubeconfigs[m.Name])); err != nil {
			return fmt.Errorf("failed to apply the kubeconfig Secret of %q: %w", m.Name, err)
		}
		if err := applyTyped(ctx, c, clusterObject(testbed, p, m)); err != nil {
			return fmt.Errorf("failed to apply Cluster %q: %w", m.Name, err)
		}
	}
	return nil
}

// applyTyped server-side applies a typed object (with its TypeMeta set).
func applyTyped(ctx context.Context, c client.Client, obj runtime.Object) error {
	u, err := manifest.ForApply(obj)
	if err != nil {
		return err
	}
	return apply(ctx, c, u)
}
