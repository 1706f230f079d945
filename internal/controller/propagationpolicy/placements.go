package propagationpolicy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/selection"
)

// writePlacements makes the ResourcePlacements match the claims: one per
// claimed object, following its winner, owned by the object, in the
// object's namespace (PlacementNamespace for a cluster-scoped object). A placement
// whose policy is held (a selector at fault) stays as it is, even when
// another policy would win its object now: a bad edit moves nothing. It
// returns those objects, by key, with the held policy that keeps them.
func (r *Reconciler) writePlacements(ctx context.Context, claims []selection.Claim, metas map[string]metav1.Object, held map[string]bool) (map[string]string, error) {
	var existing multiclusterv1alpha1.ResourcePlacementList
	if err := r.Client.List(ctx, &existing); err != nil {
		return nil, fmt.Errorf("failed to list ResourcePlacements: %w", err)
	}
	kept := map[string]string{}
	have := map[client.ObjectKey]*multiclusterv1alpha1.ResourcePlacement{}
	for i := range existing.Items {
		rp := &existing.Items[i]
		have[client.ObjectKeyFromObject(rp)] = rp
	}
	var errs []error
	wanted := map[client.ObjectKey]bool{}
	for _, c := range claims {
		o := c.Object
		m := metas[o.Key()]
		key := client.ObjectKey{Namespace: cmp.Or(o.Namespace, r.PlacementNamespace), Name: selection.PlacementName(o.GVK, o.Name)}
		wanted[key] = true
		spec := multiclusterv1alpha1.ResourcePlacementSpec{
			Resource: multiclusterv1alpha1.ResourceReference{APIVersion: o.GVK.GroupVersion().String(), Kind: o.GVK.Kind, Name: o.Name},
			Policy:   reference(c.Winner),
		}
		owner := metav1.OwnerReference{APIVersion: spec.Resource.APIVersion, Kind: o.GVK.Kind, Name: o.Name, UID: m.GetUID(), Controller: ptr.To(true)}
		if rp := have[key]; rp != nil {
			if held[Ref(rp.Spec.Policy)] {
				kept[o.Key()] = Ref(rp.Spec.Policy)
				continue
			}
			if rp.Spec == spec && len(rp.OwnerReferences) == 1 && rp.OwnerReferences[0].UID == owner.UID {
				continue
			}
			before := rp.Spec.Policy
			rp.Spec, rp.OwnerReferences = spec, []metav1.OwnerReference{owner}
			if err := r.Client.Update(ctx, rp); err != nil {
				errs = append(errs, fmt.Errorf("failed to update ResourcePlacement %s: %w", key, err))
				continue
			}
			log.FromContext(ctx).Info("ResourcePlacement follows another policy", "resourcePlacement", klog.KObj(rp), "from", Ref(before), "to", Ref(spec.Policy))
			continue
		}
		rp := &multiclusterv1alpha1.ResourcePlacement{
			ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, OwnerReferences: []metav1.OwnerReference{owner}},
			Spec:       spec,
		}
		if err := r.Client.Create(ctx, rp); err != nil && !apierrors.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("failed to create ResourcePlacement %s: %w", key, err))
			continue
		}
		log.FromContext(ctx).Info("Created ResourcePlacement", "resourcePlacement", klog.KObj(rp), "policy", Ref(spec.Policy))
	}
	for key, rp := range have {
		if wanted[key] || held[Ref(rp.Spec.Policy)] {
			continue
		}
		if err := r.Client.Delete(ctx, rp); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("failed to delete ResourcePlacement %s: %w", key, err))
			continue
		}
		log.FromContext(ctx).Info("Deleted ResourcePlacement no policy selects", "resourcePlacement", klog.KObj(rp))
	}
	return kept, errors.Join(errs...)
}

// reference is the PolicyReference of a selection policy.
func reference(p *selection.Policy) multiclusterv1alpha1.PolicyReference {
	parts := strings.Split(p.Ref, "/")
	if p.Namespaced {
		return multiclusterv1alpha1.PolicyReference{Kind: multiclusterv1alpha1.KindPropagationPolicy, Namespace: parts[1], Name: parts[2]}
	}
	return multiclusterv1alpha1.PolicyReference{Kind: multiclusterv1alpha1.KindClusterPropagationPolicy, Name: parts[1]}
}
