package join

import (
	"k8s.io/apimachinery/pkg/types"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/inventory"
)

// Names of what Join makes.
const (
	// DefaultNamespace holds the ServiceAccount in the member and the
	// kubeconfig Secret in the management cluster: the controller's
	// (controller.DefaultNamespace, which join cannot import: the testbed
	// names Secrets as join does, and controller tests start testbeds).
	DefaultNamespace = "meridian-system"
	// ServiceAccountName is the member's ServiceAccount the controller
	// acts as.
	ServiceAccountName = "meridian-controller"
	// RoleName names the member ClusterRole and its binding.
	RoleName = "meridian-member"
	// TokenRoleName names the Role that lets the ServiceAccount renew its
	// own token, and its binding.
	TokenRoleName = "meridian-member-token"
	// KubeconfigKey is the key of the kubeconfig in the Secret, the one
	// the controller reads when a Cluster names none.
	KubeconfigKey = inventory.DefaultKubeconfigKey
	// FieldManager is the server-side apply field manager of every write.
	FieldManager = "meridian-join"
	// ComponentRole is the name `make manifests` gives the member role's
	// component (config/rbac/member/role.yaml).
	ComponentRole = "member"
)

// SecretName is the name of the kubeconfig Secret of the Cluster named
// cluster.
func SecretName(cluster string) string { return cluster + "-kubeconfig" }

// serviceAccount is the member's ServiceAccount in namespace.
func serviceAccount(namespace string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: ServiceAccountName}
}

// labels are the labels of everything Join makes for cluster.
func labels(cluster string) map[string]string {
	return map[string]string{
		multiclusterv1alpha1.LabelManagedBy:     multiclusterv1alpha1.ManagedByJoin,
		multiclusterv1alpha1.LabelJoinedCluster: cluster,
	}
}
