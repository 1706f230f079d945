package multiclusterservice

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// Kind is the owner kind written on member objects.
const Kind = "MultiClusterService"

// Finalizer holds a MultiClusterService until its member Services are
// removed.
const Finalizer = "multicluster.meridian.dev/service-cleanup"

// ConditionReady is the MultiClusterService's condition type.
const ConditionReady = multiclusterv1alpha1.ConditionServiceReady

// reasonApplyFailed means writing a member Service failed.
const reasonApplyFailed = multiclusterv1alpha1.ReasonApplyFailed

// Reconciler reconciles MultiClusterServices.
type Reconciler struct {
	Client    client.Client
	Inventory *inventory.Inventory
	Recorder  events.EventRecorder
}

// SetupWithManager registers the reconciler; a change of any
// MultiClusterDeployment, of a member Service Meridian made, or of a
// member's health re-reconciles the Services it may concern.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	clusters := source.Channel(r.Inventory.Subscribe(), handler.EnqueueRequestsFromMapFunc(
		func(ctx context.Context, _ client.Object) []reconcile.Request { return r.servicesIn(ctx, "") }))
	return ctrl.NewControllerManagedBy(mgr).
		For(&multiclusterv1alpha1.MultiClusterService{}).
		Watches(&multiclusterv1alpha1.MultiClusterDeployment{}, handler.EnqueueRequestsFromMapFunc(
			func(ctx context.Context, o client.Object) []reconcile.Request {
				return r.servicesIn(ctx, o.GetNamespace())
			})).
		WatchesRawSource(r.Inventory.OwnerSource(Kind)).
		WatchesRawSource(clusters).
		Named("multiclusterservice").
		Complete(r)
}

func (r *Reconciler) servicesIn(ctx context.Context, namespace string) []reconcile.Request {
	var list multiclusterv1alpha1.MultiClusterServiceList
	if err := r.Client.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list MultiClusterServices", "namespace", namespace)
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for _, s := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&s)})
	}
	return reqs
}

// Reconcile makes the member Services follow the matching deployment.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	mcs := &multiclusterv1alpha1.MultiClusterService{}
	if err := r.Client.Get(ctx, req.NamespacedName, mcs); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !mcs.DeletionTimestamp.IsZero() {
		if err := r.removeAll(ctx, mcs); err != nil {
			return ctrl.Result{}, err
		}
		controllerutil.RemoveFinalizer(mcs, Finalizer)
		return ctrl.Result{}, client.IgnoreNotFound(r.Client.Update(ctx, mcs))
	}
	if controllerutil.AddFinalizer(mcs, Finalizer) {
		if err := r.Client.Update(ctx, mcs); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add finalizer to MultiClusterService %s: %w", req, err)
		}
	}
	before := mcs.DeepCopy()
	defer func() {
		mcs.Status.ObservedGeneration = mcs.Generation
		if err := r.Client.Status().Patch(ctx, mcs, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of MultiClusterService %s: %w", req, err))
		}
	}()

	deployment, want, others, err := r.target(ctx, mcs)
	if err != nil {
		return ctrl.Result{}, err
	}
	mcs.Status.Deployment = deployment
	have, notes, err := r.sync(ctx, mcs, want)
	mcs.Status.Clusters = nil
	for _, c := range slices.Sorted(maps.Keys(have)) {
		mcs.Status.Clusters = append(mcs.Status.Clusters, multiclusterv1alpha1.ClusterName(c))
	}
	if r.Recorder != nil && !slices.Equal(before.Status.Clusters, mcs.Status.Clusters) {
		r.Recorder.Eventf(mcs, nil, corev1.EventTypeNormal, multiclusterv1alpha1.ReasonFollowingDeployment, "Follow", "Service now in %s", orNone(have))
	}
	switch {
	case err != nil:
		setReady(mcs, false, reasonApplyFailed, err.Error())
		return ctrl.Result{}, err
	case deployment == "":
		setReady(mcs, false, multiclusterv1alpha1.ReasonNoMatchingDeployment, fmt.Sprintf("no MultiClusterDeployment in %s has pod template labels matching selector %s", mcs.Namespace, labels.Set(mcs.Spec.Selector)))
	case len(notes) > 0:
		setReady(mcs, false, multiclusterv1alpha1.ReasonMembersMissing, strings.Join(notes, "; "))
	default:
		msg := fmt.Sprintf("Service in %s, following MultiClusterDeployment %s", orNone(have), deployment)
		if len(others) > 0 {
			msg += fmt.Sprintf(" (the selector also matches %s; the first by name is followed)", strings.Join(others, ", "))
		}
		setReady(mcs, true, multiclusterv1alpha1.ReasonFollowingDeployment, msg)
	}
	return ctrl.Result{}, nil
}

// target returns the MultiClusterDeployment mcs follows (the first by name
// whose template labels the selector matches), the clusters hosting its
// replicas, and the other deployments that matched too.
func (r *Reconciler) target(ctx context.Context, mcs *multiclusterv1alpha1.MultiClusterService) (string, map[string]bool, []string, error) {
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	if err := r.Client.List(ctx, &list, client.InNamespace(mcs.Namespace)); err != nil {
		return "", nil, nil, fmt.Errorf("failed to list MultiClusterDeployments in %s: %w", mcs.Namespace, err)
	}
	sel := labels.SelectorFromSet(mcs.Spec.Selector)
	var matched []*multiclusterv1alpha1.MultiClusterDeployment
	for i := range list.Items {
		if d := &list.Items[i]; d.DeletionTimestamp.IsZero() && sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			matched = append(matched, d)
		}
	}
	if len(matched) == 0 {
		return "", map[string]bool{}, nil, nil
	}
	slices.SortFunc(matched, func(a, b *multiclusterv1alpha1.MultiClusterDeployment) int { return strings.Compare(a.Name, b.Name) })
	want := map[string]bool{}
	for _, c := range matched[0].Status.Clusters {
		if c.Replicas > 0 {
			want[string(c.Name)] = true
		}
	}
	var others []string
	for _, d := range matched[1:] {
		others = append(others, d.Name)
	}
	return matched[0].Name, want, others, nil
}

// sync writes the Service (and its export) into the wanted members and
// removes it from the others. It returns the members that have it, and
// notes on wanted members that could not get it.
func (r *Reconciler) sync(ctx context.Context, mcs *multiclusterv1alpha1.MultiClusterService, want map[string]bool) (map[string]bool, []string, error) {
	have := map[string]bool{}
	var notes []string
	var errs []error
	connected := map[string]bool{}
	for _, name := range r.Inventory.Members() {
		m, ok := r.Inventory.Member(name)
		if !ok {
			continue
		}
		connected[name] = true
		if !want[name] {
			if err := r.remove(ctx, m.Client, mcs); err != nil {
				errs = append(errs, fmt.Errorf("member %q: %w", name, err))
			}
			continue
		}
		svc := propagation.Service(mcs)
		if err := propagation.Apply(ctx, m.Client, svc); err != nil {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
			continue
		}
		// Applied on every pass, unchanged most of the time: verbose only.
		log.FromContext(ctx).V(1).Info("Wrote member Service", "member", name, "service", klog.KObj(svc))
		have[name] = true
		if mcs.Spec.Export == nil || *mcs.Spec.Export {
			export := propagation.ServiceExport(mcs)
			err := propagation.Apply(ctx, m.Client, export)
			if err == nil {
				log.FromContext(ctx).V(1).Info("Wrote member ServiceExport", "member", name, "serviceExport", klog.KObj(export))
			}
			switch {
			case meta.IsNoMatchError(err):
				notes = append(notes, fmt.Sprintf("%s does not serve ServiceExport (install the Multi-Cluster Services API CRDs there to route across clusters)", name))
			case err != nil:
				errs = append(errs, fmt.Errorf("member %q: %w", name, err))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if !connected[name] {
			notes = append(notes, fmt.Sprintf("%s is not connected; its Service is written when it is", name))
		}
	}
	return have, notes, errors.Join(errs...)
}

// remove deletes mcs's Service and export from a member, if Meridian made
// them for mcs.
func (r *Reconciler) remove(ctx context.Context, c client.Client, mcs *multiclusterv1alpha1.MultiClusterService) error {
	owner := propagation.OwnerOfService(mcs)
	for _, obj := range []client.Object{&corev1.Service{}, &mcsv1beta1.ServiceExport{}} {
		err := c.Get(ctx, client.ObjectKeyFromObject(mcs), obj)
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to read %T %s: %w", obj, mcs.Name, err)
		}
		if o, ok := propagation.OwnerOf(obj); !ok || o.Kind != Kind || (o.UID != "" && o.UID != owner.UID) {
			continue
		}
		if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("failed to delete %T %s: %w", obj, mcs.Name, err)
		}
		log.FromContext(ctx).Info("Deleted member object", "kind", fmt.Sprintf("%T", obj), "object", klog.KObj(obj))
	}
	return nil
}

// removeAll removes mcs's Services from every connected member.
func (r *Reconciler) removeAll(ctx context.Context, mcs *multiclusterv1alpha1.MultiClusterService) error {
	var errs []error
	for _, name := range r.Inventory.Members() {
		if m, ok := r.Inventory.Member(name); ok {
			if err := r.remove(ctx, m.Client, mcs); err != nil {
				errs = append(errs, fmt.Errorf("member %q: %w", name, err))
			}
		}
	}
	return errors.Join(errs...)
}

func setReady(mcs *multiclusterv1alpha1.MultiClusterService, ok bool, reason, msg string) {
	conditions.Set(&mcs.Status.Conditions, mcs.Generation, ConditionReady, ok, reason, msg)
}

func orNone(have map[string]bool) string {
	if len(have) == 0 {
		return "no cluster"
	}
	return strings.Join(slices.Sorted(maps.Keys(have)), ", ")
}
