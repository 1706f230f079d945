package join

import (
	"context"
	"fmt"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// right is one action on one kind, cluster-wide when namespace is empty.
type right struct {
	verb, group, resource, subresource, namespace string
}

func (r right) String() string {
	res := r.resource
	if r.subresource != "" {
		res += "/" + r.subresource
	}
	if r.group != "" {
		res += "." + r.group
	}
	where := "cluster-wide"
	if r.namespace != "" {
		where = "in namespace " + r.namespace
	}
	return fmt.Sprintf("%s %s (%s)", r.verb, res, where)
}

// missing asks the API server, with one SelfSubjectAccessReview each,
// which of rights the caller lacks.
func missing(ctx context.Context, cs kubernetes.Interface, rights []right) ([]right, error) {
	var out []right
	for _, r := range rights {
		review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: r.verb, Group: r.group, Resource: r.resource, Subresource: r.subresource, Namespace: r.namespace,
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("failed to ask whether the caller may %s: %w", r, err)
		}
		if !review.Status.Allowed {
			out = append(out, r)
		}
	}
	return out, nil
}

// writes are the rights to get, create and patch a kind.
func writes(group, resource, namespace string) []right {
	var out []right
	for _, v := range []string{"get", "create", "patch"} {
		out = append(out, right{verb: v, group: group, resource: resource, namespace: namespace})
	}
	return out
}

// memberRights are what Join does in the member (the prober's Deployment
// too, when it deploys one); a caller who may not escalate and bind
// ClusterRoles must also hold every right of role to grant it.
func memberRights(ctx context.Context, cs kubernetes.Interface, o Options, role *rbacv1.ClusterRole) ([]right, error) {
	namespace := o.Namespace
	rights := []right{{verb: "get", resource: "namespaces"}, {verb: "create", resource: "namespaces"}}
	if o.ProbeImage != "" {
		rights = append(rights, writes("apps", "deployments", namespace)...)
	}
	rights = append(rights, writes("", "serviceaccounts", namespace)...)
	rights = append(rights, right{verb: "create", resource: "serviceaccounts", subresource: "token", namespace: namespace})
	rights = append(rights, writes(rbacv1.GroupName, "clusterroles", "")...)
	rights = append(rights, writes(rbacv1.GroupName, "clusterrolebindings", "")...)
	rights = append(rights, writes(rbacv1.GroupName, "roles", namespace)...)
	rights = append(rights, writes(rbacv1.GroupName, "rolebindings", namespace)...)
	rights = append(rights, writes("admissionregistration.k8s.io", "validatingadmissionpolicies", "")...)
	rights = append(rights, writes("admissionregistration.k8s.io", "validatingadmissionpolicybindings", "")...)
	// Granting a role needs escalate (to write it) and bind (to bind it),
	// or holding every right it grants.
	grant, err := missing(ctx, cs, []right{
		{verb: "escalate", group: rbacv1.GroupName, resource: "clusterroles"},
		{verb: "bind", group: rbacv1.GroupName, resource: "clusterroles"},
	})
	if err != nil {
		return nil, err
	}
	if len(grant) > 0 {
		for _, rule := range role.Rules {
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					name, sub, _ := strings.Cut(res, "/")
					for _, v := range rule.Verbs {
						rights = append(rights, right{verb: v, group: g, resource: name, subresource: sub})
					}
				}
			}
		}
	}
	return rights, nil
}

// managementRights are what Join does in the management cluster.
func managementRights(namespace string) []right {
	rights := []right{{verb: "get", resource: "namespaces"}, {verb: "create", resource: "namespaces"}}
	rights = append(rights, writes("", "secrets", namespace)...)
	rights = append(rights, writes("multicluster.meridian.dev", "clusters", "")...)
	return append(rights, right{verb: "list", group: "multicluster.meridian.dev", resource: "clusters"})
}

// forbidden returns ErrForbidden naming each missing right of the caller
// in where, or nil.
func forbidden(where string, lacking []right) error {
	if len(lacking) == 0 {
		return nil
	}
	names := make([]string, 0, len(lacking))
	for _, r := range lacking {
		names = append(names, r.String())
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return fmt.Errorf("%w: the %s kubeconfig's user may not %s", ErrForbidden, where, strings.Join(names, "; may not "))
}
