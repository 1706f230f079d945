package resourceplacement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterdeployment"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterjob"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/kindwatch"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/selection"
	"github.com/meridian-dev/meridian/internal/workload"
)

// Kind is the owner kind written on member objects.
const Kind = "ResourcePlacement"

// Finalizer holds a ResourcePlacement until its member objects are
// removed.
const Finalizer = "multicluster.meridian.dev/resource-cleanup"

// resync is how often a placed object is looked at again, to restore member
// objects changed or deleted there.
const resync = 5 * time.Minute

// Reconciler reconciles ResourcePlacements.
type Reconciler struct {
	Client     client.Client
	Inventory  *inventory.Inventory
	Duplicator decide.Duplicator
	// Deployments runs the MultiClusterDeployment pass, which divides a
	// plain Deployment's, StatefulSet's and ReplicaSet's replicas too.
	Deployments *multiclusterdeployment.Reconciler
	// Jobs runs the MultiClusterJob pass, which divides a plain Job's
	// parallel pods too.
	Jobs     *multiclusterjob.Reconciler
	Recorder events.EventRecorder
	Cache    cache.Cache
	Mapper   apimeta.RESTMapper
	// PlacementNamespace holds the ResourcePlacements of cluster-scoped
	// objects (the controller's namespace).
	PlacementNamespace string
	// MaxConcurrentReconciles is how many placements are reconciled at
	// once (8 when zero), as MultiClusterDeployments are: their decisions
	// take turns (Assumptions.Turn), their reads and writes overlap. One
	// at a time, Karmada's performance workload placed 0.6 Deployments a
	// second over 10 members, each pass waiting on ten member writes.
	MaxConcurrentReconciles int

	kinds *kindwatch.Set
}

// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=resourceplacements/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=resourceplacements/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments/status;statefulsets/status;replicasets/status;daemonsets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=batch,resources=jobs/status;cronjobs/status,verbs=get;update;patch

// SetupWithManager registers the reconciler: a ResourcePlacement, its
// template (each kind watched once a placement names it) and the members'
// health re-reconcile it.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Cache == nil {
		r.Cache = mgr.GetCache()
	}
	if r.Mapper == nil {
		r.Mapper = mgr.GetRESTMapper()
	}
	if r.PlacementNamespace == "" {
		return errors.New("the ResourcePlacement controller needs the namespace of cluster-scoped objects' placements")
	}
	members := source.Channel(r.Inventory.Subscribe(), handler.EnqueueRequestsFromMapFunc(r.all))
	c, err := ctrl.NewControllerManagedBy(mgr).
		For(&multiclusterv1alpha1.ResourcePlacement{}).
		Watches(&multiclusterv1alpha1.PropagationPolicy{}, handler.EnqueueRequestsFromMapFunc(r.following(multiclusterv1alpha1.KindPropagationPolicy))).
		Watches(&multiclusterv1alpha1.ClusterPropagationPolicy{}, handler.EnqueueRequestsFromMapFunc(r.following(multiclusterv1alpha1.KindClusterPropagationPolicy))).
		WatchesRawSource(members).
		// Member Deployments and pods made for a placement.
		WatchesRawSource(r.Inventory.OwnerSource(Kind)).
		Named("resourceplacement").
		WithOptions(controller.Options{MaxConcurrentReconciles: cmp.Or(r.MaxConcurrentReconciles, 8)}).
		Build(r)
	if err != nil {
		return err
	}
	r.kinds = &kindwatch.Set{Controller: c, Cache: r.Cache, Handler: handler.EnqueueRequestsFromMapFunc(
		func(_ context.Context, o client.Object) []reconcile.Request {
			gvk := o.GetObjectKind().GroupVersionKind()
			ns := o.GetNamespace()
			if ns == "" {
				ns = r.PlacementNamespace // a cluster-scoped object's
			}
			return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ns, Name: selection.PlacementName(gvk, o.GetName())}}}
		})}
	return nil
}

// following maps a policy of kind to the placements that follow it.
func (r *Reconciler) following(kind multiclusterv1alpha1.PolicyKind) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var list multiclusterv1alpha1.ResourcePlacementList
		if err := r.Client.List(ctx, &list); err != nil {
			log.FromContext(ctx).Error(err, "Failed to list ResourcePlacements after a policy change")
			return nil
		}
		var reqs []reconcile.Request
		for i := range list.Items {
			p := list.Items[i].Spec.Policy
			if p.Kind == kind && p.Name == o.GetName() && p.Namespace == o.GetNamespace() {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
			}
		}
		return reqs
	}
}

func (r *Reconciler) all(ctx context.Context, _ client.Object) []reconcile.Request {
	var list multiclusterv1alpha1.ResourcePlacementList
	if err := r.Client.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list ResourcePlacements after a member change")
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return reqs
}

// Reconcile places one resource template.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	rp := &multiclusterv1alpha1.ResourcePlacement{}
	if err := r.Client.Get(ctx, req.NamespacedName, rp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	gvk := schema.FromAPIVersionAndKind(rp.Spec.Resource.APIVersion, rp.Spec.Resource.Kind)
	if !rp.DeletionTimestamp.IsZero() {
		if err := r.removeAll(ctx, rp, gvk); err != nil {
			return ctrl.Result{}, err
		}
		if r.Deployments != nil {
			r.Deployments.Assumptions.Forget(workload.Key(Kind, rp.Namespace, rp.Name))
		}
		if r.Jobs != nil {
			r.Jobs.Assumptions.Forget(workload.Key(Kind, rp.Namespace, rp.Name))
		}
		controllerutil.RemoveFinalizer(rp, Finalizer)
		return ctrl.Result{}, client.IgnoreNotFound(r.Client.Update(ctx, rp))
	}
	if controllerutil.AddFinalizer(rp, Finalizer) {
		if err := r.Client.Update(ctx, rp); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add finalizer to ResourcePlacement %s: %w", req, err)
		}
	}
	if err := r.kinds.Ensure(gvk); err != nil {
		return ctrl.Result{}, err
	}
	before := rp.DeepCopy()
	defer func() {
		setReady(rp)
		if equality.Semantic.DeepEqual(before.Status, rp.Status) {
			return
		}
		if err := r.Client.Status().Patch(ctx, rp, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of ResourcePlacement %s: %w", req, err))
		}
	}()

	tpl := &unstructured.Unstructured{}
	tpl.SetGroupVersionKind(gvk)
	key, err := r.template(rp, gvk)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.Client.Get(ctx, key, tpl); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil // deleted: the policy controller removes this placement
		}
		return ctrl.Result{}, fmt.Errorf("failed to read %s %s: %w", gvk.Kind, key, err)
	}
	spec, policyGeneration, err := r.policy(ctx, rp.Spec.Policy)
	if err != nil {
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec, err.Error())
		return ctrl.Result{}, nil // the policy's change re-queues the placement
	}
	rp.Status.ObservedGeneration = tpl.GetGeneration()
	ov, err := r.newOverrider(ctx, spec.Overrides, policyGeneration)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() { rp.Status.Overrides = ov.status(holding(rp)) }()
	if propagation.Divided(gvk.GroupKind()) {
		return r.placeDivided(ctx, rp, tpl, spec.Placement, ov)
	}
	if gvk.GroupKind() == (schema.GroupKind{Group: "batch", Kind: "Job"}) {
		return r.placeJob(ctx, rp, tpl, spec.Placement, ov)
	}
	return r.placeCopy(ctx, rp, tpl, spec.Placement, ov)
}

// errOverride marks a write refused because an override rule does not
// apply.
var errOverride = errors.New("override rule does not apply")

// ReasonConflict: a member already has an object of the kind and name
// that Meridian did not make; it is left as it is.
const ReasonConflict = "Conflict"

// template is the key of rp's template: in rp's namespace, or none for a
// cluster-scoped kind.
func (r *Reconciler) template(rp *multiclusterv1alpha1.ResourcePlacement, gvk schema.GroupVersionKind) (client.ObjectKey, error) {
	key := client.ObjectKey{Namespace: rp.Namespace, Name: rp.Spec.Resource.Name}
	mapping, err := r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return key, fmt.Errorf("failed to find kind %s: %w", gvk, err)
	}
	if mapping.Scope.Name() != apimeta.RESTScopeNameNamespace {
		key.Namespace = ""
	}
	return key, nil
}

// policy reads the spec of the policy ref names.
func (r *Reconciler) policy(ctx context.Context, ref multiclusterv1alpha1.PolicyReference) (*multiclusterv1alpha1.PropagationPolicySpec, int64, error) {
	var obj client.Object
	var spec *multiclusterv1alpha1.PropagationPolicySpec
	switch ref.Kind {
	case multiclusterv1alpha1.KindPropagationPolicy:
		p := &multiclusterv1alpha1.PropagationPolicy{}
		obj, spec = p, &p.Spec
	default:
		p := &multiclusterv1alpha1.ClusterPropagationPolicy{}
		obj, spec = p, &p.Spec
	}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, obj); err != nil {
		return nil, 0, fmt.Errorf("failed to read the policy %s %s: %w", ref.Kind, ref.Name, err)
	}
	return spec, obj.GetGeneration(), nil
}

// holding are the clusters the placement's status says hold the object.
func holding(rp *multiclusterv1alpha1.ResourcePlacement) []string {
	var out []string
	for _, c := range rp.Status.Clusters {
		if c.Reason.Places() {
			out = append(out, string(c.Name))
		}
	}
	return out
}

// placeCopy places a template copied whole.
func (r *Reconciler) placeCopy(ctx context.Context, rp *multiclusterv1alpha1.ResourcePlacement, tpl *unstructured.Unstructured, pl multiclusterv1alpha1.Placement, ov *overrider) (ctrl.Result, error) {
	owner := propagation.Owner{Kind: Kind, Namespace: rp.Namespace, Name: rp.Name, UID: string(rp.UID)}
	podSpec := &corev1.PodSpec{}
	if t, err := workload.PodTemplateOf(tpl); err != nil {
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec, err.Error())
		return ctrl.Result{}, nil
	} else if t != nil {
		podSpec = &t.Spec
	}
	w, err := workload.New(workload.Key(Kind, rp.Namespace, rp.Name), placement.KindCopy, 1, podSpec, pl)
	if err != nil {
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec,
			"the policy's placement: "+err.Error())
		return ctrl.Result{}, reconcile.TerminalError(err) // the policy must change first; that change re-queues us
	}
	members, conns, err := r.observe(ctx, tpl, owner)
	if err != nil {
		return ctrl.Result{}, err
	}
	p, err := decide.Copy(ctx, r.Duplicator, decide.CopyInput{Workload: w, Snapshot: r.Inventory.Snapshot(nil), Members: members})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to place %s: %w", rp.Name, err)
	}
	cp, err := propagation.Copy(tpl, owner)
	if err != nil {
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec, err.Error())
		return ctrl.Result{}, nil
	}
	var errs []error
	for _, name := range p.Write {
		obj := cp.DeepCopy()
		if err := ov.apply(name, obj); err != nil {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
			continue
		}
		if err := propagation.Apply(ctx, conns[name], obj); err != nil {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
			continue
		}
		log.FromContext(ctx).V(1).Info("Wrote member copy", "member", name, "object", klog.KObj(cp), "kind", cp.GetKind())
	}
	for _, name := range p.Remove {
		if err := r.remove(ctx, conns[name], name, tpl.GroupVersionKind(), tpl.GetNamespace(), tpl.GetName(), owner); err != nil {
			errs = append(errs, err)
		}
	}
	r.report(rp, p, errs)
	switch tpl.GroupVersionKind().GroupKind() {
	case schema.GroupKind{Group: "apps", Kind: "DaemonSet"}:
		if err := r.writeDaemonSetStatus(ctx, tpl, p.Write, conns); err != nil {
			errs = append(errs, err)
		}
	case schema.GroupKind{Group: "batch", Kind: "CronJob"}:
		if err := r.writeCronJobStatus(ctx, tpl, p.Write, conns); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to propagate %s: %w", rp.Name, err)
	}
	return ctrl.Result{RequeueAfter: resync}, nil
}

// observe reads which members hold the copy (Meridian's, for this
// placement), and their readiness; conns are the connected members'
// clients.
func (r *Reconciler) observe(ctx context.Context, tpl *unstructured.Unstructured, owner propagation.Owner) (map[string]decide.CopyMember, map[string]client.Client, error) {
	out := map[string]decide.CopyMember{}
	conns := map[string]client.Client{}
	for name, ready := range r.Inventory.Readiness() {
		m := decide.CopyMember{Ready: ready}
		conn, ok := r.Inventory.Member(name)
		if !ok {
			m.Ready = false // cannot be written: treated as not ready
			out[name] = m
			continue
		}
		conns[name] = conn.Client
		have := &metav1.PartialObjectMetadata{}
		have.SetGroupVersionKind(tpl.GroupVersionKind())
		err := conn.APIReader.Get(ctx, client.ObjectKeyFromObject(tpl), have)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil && apimeta.IsNoMatchError(err):
		case err != nil:
			return nil, nil, fmt.Errorf("failed to read %s %s in member %q: %w", tpl.GetKind(), klog.KObj(tpl), name, err)
		default:
			switch o, ok := propagation.OwnerOf(have); {
			case ok && o.Kind == owner.Kind && o.Name == owner.Name && (o.UID == "" || o.UID == owner.UID):
				m.Exists = true
			case propagation.Adoptable(have, tpl.GroupVersionKind()):
			case ok && o.Kind == owner.Kind && o.Name == owner.Name && propagation.Kept(tpl.GroupVersionKind()):
				// A Namespace an earlier placement of the same object left
				// in a member that was away when it was deleted.
			default:
				m.Foreign = true
			}
		}
		out[name] = m
	}
	return out, conns, nil
}

// remove deletes the copy from a member if Meridian made it for owner.
func (r *Reconciler) remove(ctx context.Context, c client.Client, member string, gvk schema.GroupVersionKind, ns, name string, owner propagation.Owner) error {
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(gvk)
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) || apimeta.IsNoMatchError(err) {
			return nil
		}
		return fmt.Errorf("failed to read %s %s/%s in member %q: %w", gvk.Kind, ns, name, member, err)
	}
	if o, ok := propagation.OwnerOf(obj); !ok || o.Kind != owner.Kind || o.Name != owner.Name {
		return nil
	}
	if propagation.Kept(gvk) {
		if err := propagation.Disown(ctx, c, obj); err != nil {
			return fmt.Errorf("member %q: %w", member, err)
		}
		log.FromContext(ctx).Info("Disowned member copy, which stays", "member", member, "kind", gvk.Kind, "object", klog.KRef(ns, name))
		return nil
	}
	// In the background: a Job's pods would otherwise be orphaned (the
	// default of batch/v1).
	if err := c.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete %s %s/%s in member %q: %w", gvk.Kind, ns, name, member, err)
	}
	log.FromContext(ctx).Info("Deleted member copy", "member", member, "kind", gvk.Kind, "object", klog.KRef(ns, name))
	return nil
}

// removeAll deletes the copies from every connected member.
func (r *Reconciler) removeAll(ctx context.Context, rp *multiclusterv1alpha1.ResourcePlacement, gvk schema.GroupVersionKind) error {
	owner := propagation.Owner{Kind: Kind, Namespace: rp.Namespace, Name: rp.Name, UID: string(rp.UID)}
	keys := []client.ObjectKey{}
	key, err := r.template(rp, gvk)
	switch {
	case err == nil:
		keys = append(keys, key)
	case apimeta.IsNoMatchError(errors.Unwrap(err)):
		// The management cluster serves the kind no more, so its scope
		// is unknown: both names are tried (remove ignores what a member
		// does not serve either).
		keys = append(keys, client.ObjectKey{Namespace: rp.Namespace, Name: rp.Spec.Resource.Name}, client.ObjectKey{Name: rp.Spec.Resource.Name})
	default:
		return err
	}
	var errs []error
	for _, name := range r.Inventory.Members() {
		if m, ok := r.Inventory.Member(name); ok {
			for _, k := range keys {
				errs = append(errs, r.remove(ctx, m.Client, name, gvk, k.Namespace, k.Name, owner))
			}
		}
	}
	return errors.Join(errs...)
}

// report writes the decision and the conditions.
func (r *Reconciler) report(rp *multiclusterv1alpha1.ResourcePlacement, p *decide.CopyPlan, errs []error) {
	roles := map[string]placement.Role{}
	for _, a := range p.Decision.Assignments {
		roles[a.Cluster] = a.Role
	}
	var clusters []multiclusterv1alpha1.ClusterDecision
	for _, res := range p.Decision.Clusters {
		cd := multiclusterv1alpha1.ClusterDecision{Name: multiclusterv1alpha1.ClusterName(res.Cluster)}
		switch {
		case slices.Contains(p.Held, res.Cluster):
			cd.Reason, cd.Message = multiclusterv1alpha1.PlacementSelected, "member not ready; its copy stays until it returns"
		case roles[res.Cluster] != "":
			cd.Reason, cd.Message = multiclusterv1alpha1.PlacementReason(roles[res.Cluster]), "holds a copy"
		case res.Filter != nil:
			cd.Reason, cd.Message = multiclusterv1alpha1.PlacementFiltered, conditions.Truncate(res.Filter.Plugin+": "+res.Filter.Reason, 1024)
		default:
			cd.Reason, cd.Message = multiclusterv1alpha1.PlacementNotChosen, "passed the filters but was not needed"
		}
		cd.Message = conditions.Truncate(p.Decision.LatencyOf(res.Cluster).Explain(cd.Message), 1024)
		clusters = append(clusters, cd)
	}
	rp.Status.Clusters = clusters
	holding := slices.Sorted(slices.Values(append(slices.Clone(p.Write), p.Held...)))
	rp.Status.Summary = strings.Join(holding, ",")
	if len(p.Decision.Assignments) == 0 {
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonNoCluster,
			"no cluster passed the policy's filters; status.clusters says why each was ruled out")
	} else {
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPlaced, true, multiclusterv1alpha1.ReasonPlaced,
			"copied to "+rp.Status.Summary)
	}
	switch {
	case len(errs) > 0:
		reason := multiclusterv1alpha1.ReasonApplyFailed
		if errors.Is(errors.Join(errs...), errOverride) {
			reason = multiclusterv1alpha1.ReasonOverrideFailed
		}
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPropagated, false, reason,
			conditions.Truncate(errors.Join(errs...).Error()+"; the members keep the objects they have", 4096))
	case len(p.Conflicts) > 0:
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPropagated, false, ReasonConflict,
			fmt.Sprintf("%s already has a %s of this name that Meridian did not make; it is left as it is (delete it there, or rename one of them)",
				strings.Join(p.Conflicts, ", "), rp.Spec.Resource.Kind))
	case len(p.Held) > 0:
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPropagated, false, multiclusterv1alpha1.ReasonMemberUnreachable,
			"members not ready keep their copies until they return: "+strings.Join(p.Held, ", "))
	default:
		conditions.Set(&rp.Status.Conditions, rp.Generation, multiclusterv1alpha1.ConditionPropagated, true, multiclusterv1alpha1.ReasonPropagated,
			"the members hold the copies the decision asks for")
	}
}

// setReady summarises Placed and Propagated.
func setReady(rp *multiclusterv1alpha1.ResourcePlacement) {
	conditions.SetSummary(&rp.Status.Conditions, rp.Generation, conditions.Summary{
		Type: multiclusterv1alpha1.ConditionReady, Reason: multiclusterv1alpha1.ReasonReady,
		Message:       "placed and propagated: " + rp.Status.Summary,
		MissingReason: multiclusterv1alpha1.ReasonNotObserved,
	},
		conditions.Requirement{Type: multiclusterv1alpha1.ConditionPlaced, Status: metav1.ConditionTrue},
		conditions.Requirement{Type: multiclusterv1alpha1.ConditionPropagated, Status: metav1.ConditionTrue},
		// A divided kind's replicas must be available too.
		conditions.Requirement{Type: multiclusterv1alpha1.ConditionAvailable, Status: metav1.ConditionTrue, MayBeAbsent: true},
	)
}
