package propagationpolicy

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/kindwatch"
	"github.com/meridian-dev/meridian/internal/selection"
)

// all is the one key the controller reconciles.
var all = reconcile.Request{NamespacedName: client.ObjectKey{Name: "all"}}

// Reconciler reconciles every propagation policy and ResourcePlacement.
type Reconciler struct {
	Client   client.Client
	Mapper   apimeta.RESTMapper
	Cache    cache.Cache
	Recorder events.EventRecorder
	// PlacementNamespace holds the ResourcePlacements of cluster-scoped
	// objects (the controller's namespace).
	PlacementNamespace string

	kinds *kindwatch.Set
}

// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=propagationpolicies;clusterpropagationpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=propagationpolicies/status;clusterpropagationpolicies/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=resourceplacements,verbs=get;list;watch;create;update;patch;delete
// The kinds policies place most often; for any other (a CRD's instances),
// the controller's ServiceAccount needs get, list and watch granted, and a
// policy selecting it says so until it has them.
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;daemonsets;replicasets,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch,resources=jobs;cronjobs,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps;secrets;services;serviceaccounts;persistentvolumeclaims,verbs=get;list;watch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses;networkpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch
// The cluster-scoped kinds ClusterPropagationPolicies place most often.
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles;clusterrolebindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=get;list;watch

// SetupWithManager registers the reconciler; selected kinds are watched as
// the policies name them.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Cache == nil {
		r.Cache = mgr.GetCache()
	}
	if r.Mapper == nil {
		r.Mapper = mgr.GetRESTMapper()
	}
	if r.PlacementNamespace == "" {
		return errors.New("the propagation policy controller needs the namespace of cluster-scoped objects' placements")
	}
	c, err := ctrl.NewControllerManagedBy(mgr).Named("propagationpolicy").
		Watches(&multiclusterv1alpha1.PropagationPolicy{}, enqueueAll()).
		Watches(&multiclusterv1alpha1.ClusterPropagationPolicy{}, enqueueAll()).
		Watches(&multiclusterv1alpha1.ResourcePlacement{}, enqueueAll()).
		Build(r)
	if err != nil {
		return err
	}
	r.kinds = &kindwatch.Set{Controller: c, Cache: r.Cache, Handler: enqueueAll()}
	return nil
}

func enqueueAll() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{all} })
}

// Reconcile selects, decides the winners, and writes the placements and
// the policies' status.
func (r *Reconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	policies, err := r.policies(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	var valid []selection.Policy
	held := map[string]bool{}
	gvks := map[schema.GroupVersionKind]bool{}
	for _, p := range policies {
		if len(p.problems) > 0 {
			held[p.sel.Ref] = true
			continue
		}
		valid = append(valid, p.sel)
		for _, s := range p.sel.Selectors {
			gvks[s.GVK] = true
		}
	}
	objects, uids, unreadable, err := r.objects(ctx, gvks)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(unreadable) > 0 {
		// A kind the controller may not read holds the policies that
		// select it, like a selector at fault.
		valid = valid[:0]
		for _, p := range policies {
			for i, s := range p.sel.Selectors {
				if err := unreadable[s.GVK]; err != nil {
					p.problems = append(p.problems, problem{ReasonUnreadable, fmt.Sprintf("spec.resourceSelectors[%d]: %v", i, err)})
				}
			}
			if len(p.problems) > 0 {
				held[p.sel.Ref] = true
			} else {
				valid = append(valid, p.sel)
			}
		}
	}
	claims, byPolicy := selection.Select(valid, objects)
	kept, err := r.writePlacements(ctx, claims, uids, held)
	errs := []error{err}
	for _, p := range policies {
		errs = append(errs, r.writeStatus(ctx, p, byPolicy[p.sel.Ref], kept))
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// ReasonUnreadable means the controller may not read a selected kind; the
// message says which rights to grant.
const ReasonUnreadable = "Unreadable"

// objects lists the metadata of every object of gvks, watching each kind;
// unreadable are the kinds the controller may not list, with why.
func (r *Reconciler) objects(ctx context.Context, gvks map[schema.GroupVersionKind]bool) ([]selection.Object, map[string]metav1.Object, map[schema.GroupVersionKind]error, error) {
	var out []selection.Object
	metas := map[string]metav1.Object{}
	unreadable := map[schema.GroupVersionKind]error{}
	for gvk := range gvks {
		if !r.canList(ctx, gvk, unreadable) {
			continue
		}
		if err := r.kinds.Ensure(gvk); err != nil {
			return nil, nil, nil, err
		}
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := r.Client.List(ctx, list); err != nil {
			if apierrors.IsNotFound(err) || apimeta.IsNoMatchError(err) {
				continue // the kind went away since the policy was read
			}
			return nil, nil, nil, fmt.Errorf("failed to list %s: %w", gvk, err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			if !o.DeletionTimestamp.IsZero() {
				continue
			}
			so := selection.Object{GVK: gvk, Namespace: o.Namespace, Name: o.Name, Labels: o.Labels}
			out = append(out, so)
			metas[so.Key()] = o
		}
	}
	return out, metas, unreadable, nil
}
