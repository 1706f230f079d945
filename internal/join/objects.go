package join

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/config"
)

// copyVerbs are what the controller does with an object it copies whole
// into a member (a ResourcePlacement's copy): the verbs the generated role
// grants on ConfigMaps, the kind copies are made of most.
func copyVerbs(role *rbacv1.ClusterRole) []string {
	for _, r := range role.Rules {
		if slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, "configmaps") {
			return r.Verbs
		}
	}
	return nil
}

// MemberRole returns the ClusterRole the controller gets in a member: the
// one `make manifests` generated from the markers in member_rbac.go, with
// the verbs of a copy on each of the extra resources.
func MemberRole(resources []string) (*rbacv1.ClusterRole, error) {
	role, err := config.ComponentRole(ComponentRole)
	if err != nil {
		return nil, err
	}
	role.Name = RoleName
	verbs := copyVerbs(role)
	for _, r := range resources {
		gr, err := parseResource(r)
		if err != nil {
			return nil, err
		}
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{gr.Group}, Resources: []string{gr.Resource}, Verbs: slices.Clone(verbs)})
	}
	return role, nil
}

// memberObjects are what Join applies in the member, in order: the
// ServiceAccount first, so that the bindings never name a missing one.
// The namespace is not among them: it is created only when missing.
func memberObjects(o Options, role *rbacv1.ClusterRole, managementID string) []client.Object {
	l := labels(o.Name)
	sa := &corev1.ServiceAccount{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{
			Name: ServiceAccountName, Namespace: o.Namespace, Labels: l,
			Annotations: map[string]string{multiclusterv1alpha1.AnnotationManagementID: managementID},
		},
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ServiceAccountName, Namespace: o.Namespace}}
	cr := &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: RoleName, Labels: l},
		Rules:      role.Rules,
	}
	crb := &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: RoleName, Labels: l},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: RoleName},
		Subjects:   subject,
	}
	// The token renews itself: create serviceaccounts/token, for this
	// ServiceAccount only.
	tr := &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: TokenRoleName, Namespace: o.Namespace, Labels: l},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"},
			ResourceNames: []string{ServiceAccountName}, Verbs: []string{"create"},
		}},
	}
	trb := &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: TokenRoleName, Namespace: o.Namespace, Labels: l},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: TokenRoleName},
		Subjects:   subject,
	}
	return append([]client.Object{sa, cr, crb, tr, trb}, guardObjects(o)...)
}

// namespaceObject is a namespace Join creates, marked so that Unjoin
// deletes it.
func namespaceObject(name, cluster string) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Labels: labels(cluster),
			Annotations: map[string]string{multiclusterv1alpha1.AnnotationCreatedByJoin: "true"},
		},
	}
}

// clusterObject is the Cluster Join writes in the management cluster.
func clusterObject(o Options, clusterID string) *multiclusterv1alpha1.Cluster {
	l := maps.Clone(o.Labels)
	if l == nil {
		l = map[string]string{}
	}
	maps.Copy(l, labels(o.Name))
	return &multiclusterv1alpha1.Cluster{
		TypeMeta: metav1.TypeMeta{APIVersion: multiclusterv1alpha1.GroupVersion.String(), Kind: "Cluster"},
		ObjectMeta: metav1.ObjectMeta{
			Name: o.Name, Labels: l,
			Annotations: map[string]string{multiclusterv1alpha1.AnnotationClusterID: clusterID},
		},
		Spec: multiclusterv1alpha1.ClusterSpec{
			KubeconfigSecretRef: multiclusterv1alpha1.SecretReference{Name: SecretName(o.Name), Namespace: o.Namespace, Key: KubeconfigKey},
			Region:              o.Region,
			Zone:                o.Zone,
			Provider:            o.Provider,
			GridZone:            o.GridZone,
			Jurisdiction:        o.Jurisdiction,
		},
	}
}

// secretObject is the kubeconfig Secret Join writes in the management
// cluster (its data and token annotations are set by the caller).
func secretObject(o Options) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: SecretName(o.Name), Namespace: o.Namespace, Labels: labels(o.Name)},
		Type:       corev1.SecretTypeOpaque,
	}
}
