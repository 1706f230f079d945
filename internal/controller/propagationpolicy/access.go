package propagationpolicy

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// +kubebuilder:rbac:groups=authorization.k8s.io,resources=selfsubjectaccessreviews,verbs=create

// canList reports whether the controller may list and watch gvk, asking the
// API server (SelfSubjectAccessReview) before the kind is first watched: an
// informer on a kind it may not list would wait forever. When it may not,
// unreadable[gvk] says what to grant.
func (r *Reconciler) canList(ctx context.Context, gvk schema.GroupVersionKind, unreadable map[schema.GroupVersionKind]error) bool {
	if r.kinds.Watched(gvk) {
		return true
	}
	m, err := r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return true // the list reports a kind that went away
	}
	for _, verb := range []string{"list", "watch"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: gvk.Group, Version: gvk.Version, Resource: m.Resource.Resource, Verb: verb},
		}}
		if err := r.Client.Create(ctx, review); err != nil {
			unreadable[gvk] = fmt.Errorf("cannot check whether the controller may read %s: %w", m.Resource.GroupResource(), err)
			return false
		}
		if !review.Status.Allowed {
			unreadable[gvk] = fmt.Errorf("the controller may not %s %s: grant its ServiceAccount get, list and watch on them "+
				"(a ClusterRole bound to it; docs/policies.md)", verb, m.Resource.GroupResource())
			return false
		}
	}
	return true
}
