package dependencies

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/dependencies"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/workload"
)

// Event reasons on the workloads that name a dependency.
const (
	// ReasonDependencyMissing: a required object the pod template names
	// does not exist in the management cluster.
	ReasonDependencyMissing = "DependencyMissing"
	// ReasonDependencyConflict: a member already has an object of that
	// kind and name that Meridian did not copy; it is left as it is.
	ReasonDependencyConflict = "DependencyConflict"
	// ReasonDependencyFailed: the object could not be copied.
	ReasonDependencyFailed = "DependencyFailed"
)

// resync is how often a namespace with workloads is looked at again, to
// restore copies changed or deleted in a member.
const resync = 5 * time.Minute

// Reconciler reconciles the dependencies of one namespace's workloads.
type Reconciler struct {
	// Client reads the management cluster (from the manager's cache).
	Client    client.Client
	Inventory *inventory.Inventory
	Recorder  events.EventRecorder
}

// +kubebuilder:rbac:groups="",resources=configmaps;serviceaccounts;persistentvolumeclaims,verbs=get;list;watch

// SetupWithManager registers the reconciler: a change of a workload, of an
// object a pod template can name, or of the members re-reconciles the
// namespaces concerned.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	byNamespace := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: o.GetNamespace()}}}
	})
	members := source.Channel(r.Inventory.Subscribe(), handler.EnqueueRequestsFromMapFunc(
		func(ctx context.Context, _ client.Object) []reconcile.Request { return r.namespacesWithWorkloads(ctx) }))
	b := ctrl.NewControllerManagedBy(mgr).Named("dependencies").
		Watches(&multiclusterv1alpha1.MultiClusterDeployment{}, byNamespace).
		Watches(&multiclusterv1alpha1.MultiClusterJob{}, byNamespace).
		Watches(&multiclusterv1alpha1.ResourcePlacement{}, byNamespace).
		WatchesRawSource(members)
	for _, obj := range []client.Object{&corev1.ConfigMap{}, &corev1.Secret{}, &corev1.ServiceAccount{}, &corev1.PersistentVolumeClaim{}} {
		b = b.Watches(obj, byNamespace)
	}
	// Namespaces are independent: several at once, each waiting mostly on
	// the members' API servers.
	return b.WithOptions(controller.Options{MaxConcurrentReconciles: 4}).Complete(r)
}

// namespacesWithWorkloads lists the namespaces that hold a workload: a
// MultiClusterDeployment, a MultiClusterJob or a placed template.
func (r *Reconciler) namespacesWithWorkloads(ctx context.Context) []reconcile.Request {
	seen := map[string]bool{}
	var ds multiclusterv1alpha1.MultiClusterDeploymentList
	var js multiclusterv1alpha1.MultiClusterJobList
	var rps multiclusterv1alpha1.ResourcePlacementList
	if err := errors.Join(r.Client.List(ctx, &ds), r.Client.List(ctx, &js), r.Client.List(ctx, &rps)); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list workloads")
		return nil
	}
	for _, d := range ds.Items {
		seen[d.Namespace] = true
	}
	for _, j := range js.Items {
		seen[j.Namespace] = true
	}
	for _, p := range rps.Items {
		seen[p.Namespace] = true
	}
	var out []reconcile.Request
	for ns := range seen {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKey{Name: ns}})
	}
	return out
}

// Reconcile makes every connected member hold the dependencies of the
// workloads it runs from the namespace req.Name, and no others.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ns := req.Name
	users, objects, placed, err := r.workloads(ctx, ns)
	if err != nil {
		return ctrl.Result{}, err
	}
	plan := dependencies.Plan(users)
	for c, needs := range plan {
		// What a policy places itself is not a dependency to copy.
		plan[c] = slices.DeleteFunc(needs, func(n dependencies.Need) bool { return placed[dependencies.Ref{Kind: n.Kind, Name: n.Name}] })
	}
	var errs []error
	var problems []problem
	for _, name := range r.Inventory.Members() {
		m, ok := r.Inventory.Member(name)
		if !ok {
			continue // not connected: corrected when it connects
		}
		p, err := r.syncMember(ctx, ns, name, m, plan[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
		}
		problems = append(problems, p...)
	}
	r.report(objects, problems)
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to sync the dependencies of namespace %s: %w", ns, err)
	}
	if len(users) == 0 {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: resync}, nil
}

// workloads reads the namespace's workloads that are not being deleted:
// what their pod templates name and the clusters that run their replicas.
// objects holds each workload by its user key, for events; placed are the
// objects of the dependency kinds a propagation policy places itself.
func (r *Reconciler) workloads(ctx context.Context, ns string) ([]dependencies.User, map[string]client.Object, map[dependencies.Ref]bool, error) {
	var ds multiclusterv1alpha1.MultiClusterDeploymentList
	var js multiclusterv1alpha1.MultiClusterJobList
	if err := r.Client.List(ctx, &ds, client.InNamespace(ns)); err != nil {
		return nil, nil, nil, fmt.Errorf("failed to list MultiClusterDeployments in %s: %w", ns, err)
	}
	if err := r.Client.List(ctx, &js, client.InNamespace(ns)); err != nil {
		return nil, nil, nil, fmt.Errorf("failed to list MultiClusterJobs in %s: %w", ns, err)
	}
	var users []dependencies.User
	objects := map[string]client.Object{}
	add := func(obj client.Object, kind string, spec *corev1.PodSpec, placed []multiclusterv1alpha1.ClusterDecision) {
		if !obj.GetDeletionTimestamp().IsZero() {
			return
		}
		u := dependencies.User{Key: kind + "/" + obj.GetName(), Refs: dependencies.Of(spec)}
		for _, c := range placed {
			if c.Replicas > 0 {
				u.Clusters = append(u.Clusters, string(c.Name))
			}
		}
		users = append(users, u)
		objects[u.Key] = obj
	}
	for i := range ds.Items {
		d := &ds.Items[i]
		add(d, "MultiClusterDeployment", &d.Spec.Template.Spec, d.Status.Clusters)
	}
	for i := range js.Items {
		j := &js.Items[i]
		add(j, "MultiClusterJob", &j.Spec.Template.Spec, j.Status.Clusters)
	}
	var rps multiclusterv1alpha1.ResourcePlacementList
	if err := r.Client.List(ctx, &rps, client.InNamespace(ns)); err != nil {
		return nil, nil, nil, fmt.Errorf("failed to list ResourcePlacements in %s: %w", ns, err)
	}
	placed := map[dependencies.Ref]bool{}
	for i := range rps.Items {
		rp := &rps.Items[i]
		if rp.Spec.Resource.APIVersion == "v1" {
			placed[dependencies.Ref{Kind: dependencies.Kind(rp.Spec.Resource.Kind), Name: rp.Spec.Resource.Name}] = true
		}
		tpl, spec, err := r.templateOf(ctx, rp)
		if err != nil {
			return nil, nil, nil, err
		}
		if spec == nil {
			continue // not a kind with pods, gone, or its policy says None
		}
		var decided []multiclusterv1alpha1.ClusterDecision
		for _, c := range rp.Status.Clusters {
			if c.Replicas > 0 || c.Reason.Places() {
				decided = append(decided, multiclusterv1alpha1.ClusterDecision{Name: c.Name, Replicas: 1})
			}
		}
		add(tpl, rp.Spec.Resource.Kind, spec, decided)
	}
	return users, objects, placed, nil
}

// templateOf reads a ResourcePlacement's template and its pod spec; the
// spec is nil when the template makes no pods, is gone, or its policy asks
// for no dependencies.
func (r *Reconciler) templateOf(ctx context.Context, rp *multiclusterv1alpha1.ResourcePlacement) (client.Object, *corev1.PodSpec, error) {
	var mode multiclusterv1alpha1.DependencyMode
	ref := rp.Spec.Policy
	if ref.Kind == multiclusterv1alpha1.KindPropagationPolicy {
		p := &multiclusterv1alpha1.PropagationPolicy{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, p); err != nil {
			return nil, nil, client.IgnoreNotFound(err)
		}
		mode = p.Spec.Dependencies
	} else {
		p := &multiclusterv1alpha1.ClusterPropagationPolicy{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: ref.Name}, p); err != nil {
			return nil, nil, client.IgnoreNotFound(err)
		}
		mode = p.Spec.Dependencies
	}
	if mode == multiclusterv1alpha1.DependenciesNone {
		return nil, nil, nil
	}
	tpl := &unstructured.Unstructured{}
	tpl.SetGroupVersionKind(schema.FromAPIVersionAndKind(rp.Spec.Resource.APIVersion, rp.Spec.Resource.Kind))
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: rp.Namespace, Name: rp.Spec.Resource.Name}, tpl); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("failed to read %s %s/%s: %w", rp.Spec.Resource.Kind, rp.Namespace, rp.Spec.Resource.Name, err)
	}
	// A template whose pod template cannot be read is reported by its
	// placement; it has no dependencies here.
	if t, err := workload.PodTemplateOf(tpl); err == nil && t != nil {
		return tpl, &t.Spec, nil
	}
	return nil, nil, nil
}

// problem is a dependency that cannot be copied, for the workloads that
// need it.
type problem struct {
	reason, message string
	users           []string
}

// syncMember makes member hold exactly needs of namespace ns: copies
// written where missing or out of date, copies no longer needed deleted.
// It returns what cannot be done.
func (r *Reconciler) syncMember(ctx context.Context, ns, name string, m *inventory.Member, needs []dependencies.Need) ([]problem, error) {
	have, err := copiesIn(ctx, m.APIReader, ns)
	if err != nil {
		return nil, err
	}
	var errs []error
	var problems []problem
	wanted := map[dependencies.Ref]bool{}
	for _, n := range needs {
		key := dependencies.Ref{Kind: n.Kind, Name: n.Name}
		wanted[key] = true
		src := newObject(n.Kind)
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: n.Name}, src); apierrors.IsNotFound(err) {
			if !n.Optional {
				problems = append(problems, problem{ReasonDependencyMissing, fmt.Sprintf("%s %s, needed in %s by %s, does not exist in namespace %s of the management cluster; "+
					"the pods that need it cannot start there until it is created", n.Kind, n.Name, name, strings.Join(n.Users, ", "), ns), n.Users})
			}
			continue
		} else if err != nil {
			errs = append(errs, fmt.Errorf("failed to read %s %s/%s: %w", n.Kind, ns, n.Name, err))
			continue
		}
		cp, err := propagation.Dependency(src, n.Users)
		if err != nil {
			problems = append(problems, problem{ReasonDependencyFailed, fmt.Sprintf("%s %s, needed in %s by %s: %v", n.Kind, n.Name, name, strings.Join(n.Users, ", "), err), n.Users})
			continue
		}
		if old, ok := have[key]; ok && upToDate(old, cp) {
			continue
		} else if !ok {
			existing := newObject(n.Kind)
			err := m.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: n.Name}, existing)
			if err == nil {
				problems = append(problems, problem{ReasonDependencyConflict, fmt.Sprintf("%s %s already exists in %s and was not copied by Meridian; it is left as it is, "+
					"and the pods of %s there use it", n.Kind, n.Name, name, strings.Join(n.Users, ", ")), n.Users})
				continue
			}
			if !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("failed to read %s %s/%s: %w", n.Kind, ns, n.Name, err))
				continue
			}
		}
		if err := propagation.Apply(ctx, m.Client, cp); err != nil {
			errs = append(errs, err)
			continue
		}
		log.FromContext(ctx).Info("Copied dependency", "member", name, "kind", n.Kind, "object", klog.KObj(cp), "usedBy", n.Users)
	}
	for _, key := range sortedRefs(have) {
		if wanted[key] {
			continue
		}
		obj := have[key]
		if err := m.Client.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("failed to delete %s %s: %w", key.Kind, klog.KObj(obj), err))
			continue
		}
		log.FromContext(ctx).Info("Deleted dependency no workload needs", "member", name, "kind", key.Kind, "object", klog.KObj(obj))
	}
	return problems, errors.Join(errs...)
}

// upToDate reports whether the copy in the member was made from the same
// version of the source for the same workloads.
func upToDate(have, want client.Object) bool {
	h, w := have.GetAnnotations(), want.GetAnnotations()
	return h[multiclusterv1alpha1.AnnotationSourceVersion] == w[multiclusterv1alpha1.AnnotationSourceVersion] &&
		h[multiclusterv1alpha1.AnnotationUsedBy] == w[multiclusterv1alpha1.AnnotationUsedBy]
}

// copiesIn lists the copies Meridian made in namespace ns of a member.
func copiesIn(ctx context.Context, c client.Reader, ns string) (map[dependencies.Ref]client.Object, error) {
	out := map[dependencies.Ref]client.Object{}
	sel := client.MatchingLabels{multiclusterv1alpha1.LabelDependency: "true", multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian}
	for _, kind := range dependencies.Kinds {
		list := newList(kind)
		if err := c.List(ctx, list, client.InNamespace(ns), sel); err != nil {
			return nil, fmt.Errorf("failed to list %s copies in %s: %w", kind, ns, err)
		}
		for _, obj := range items(list) {
			out[dependencies.Ref{Kind: kind, Name: obj.GetName()}] = obj
		}
	}
	return out, nil
}

// report records each problem as a Warning event on every workload it
// concerns.
func (r *Reconciler) report(objects map[string]client.Object, problems []problem) {
	if r.Recorder == nil {
		return
	}
	for _, p := range problems {
		for _, u := range p.users {
			if obj := objects[u]; obj != nil {
				r.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, p.reason, "Propagate", "%s", p.message)
			}
		}
	}
}
