package cloudvm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/decide"
)

// FieldOwner is the field manager of the provider objects' server-side
// applies.
const FieldOwner = "meridian-cloudvm"

// Finalizer holds a CloudVM until its provider objects are deleted.
const Finalizer = "compute.meridian.dev/cloudvm-cleanup"

// Reconciler reconciles CloudVMs.
type Reconciler struct {
	// Client reads CloudVMs (cached) and writes them and their provider
	// objects.
	Client client.Client
	// APIReader reads provider objects from the API server itself: a pass
	// must see the objects the last one applied, or it would apply them
	// again.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Timing are the start slack and the poll interval; zero fields take
	// decide.DefaultVMTiming's.
	Timing decide.VMTiming
	// Clock is the reconciler's time; the real clock when nil.
	Clock clock.Clock
	// Intensities reads the carbon intensity of the hours a finished VM ran,
	// to account its emissions in status.emissions; nil accounts nothing.
	Intensities carbon.Source
	// Energy is the energy model of the accounting; the zero value means
	// carbon.DefaultEnergyModel (the model the carbon scheduler plans with).
	Energy carbon.EnergyModel
	// EmissionsTiming says when the accounting reads; zero fields take
	// decide.DefaultEmissionsTiming's.
	EmissionsTiming decide.EmissionsTiming
}

// SetupWithManager registers the reconciler. The provider kinds whose CRDs
// are installed are watched (metadata only): a change of an object with a
// CloudVM's label reconciles that CloudVM. Kinds installed later, or whose
// discovery failed, are followed by the Poll interval until the controller
// restarts.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	r.Timing.StartSlack = cmp.Or(r.Timing.StartSlack, decide.DefaultVMTiming.StartSlack)
	r.Timing.Poll = cmp.Or(r.Timing.Poll, decide.DefaultVMTiming.Poll)
	if r.Energy.WattsPerVCPU == 0 && r.Energy.WattsPerGiB == 0 {
		r.Energy = carbon.DefaultEnergyModel
	}
	r.EmissionsTiming.Settle = cmp.Or(r.EmissionsTiming.Settle, decide.DefaultEmissionsTiming.Settle)
	r.EmissionsTiming.Retry = cmp.Or(r.EmissionsTiming.Retry, decide.DefaultEmissionsTiming.Retry)
	r.EmissionsTiming.GiveUp = cmp.Or(r.EmissionsTiming.GiveUp, decide.DefaultEmissionsTiming.GiveUp)
	b := ctrl.NewControllerManagedBy(mgr).
		For(&computev1alpha1.CloudVM{}).
		Named("cloudvm")
	labelled := predicate.NewPredicateFuncs(func(o client.Object) bool {
		_, ok := o.GetLabels()[computev1alpha1.LabelCloudVM]
		return ok
	})
	logger := mgr.GetLogger().WithName("cloudvm")
	for _, gk := range ProviderKinds {
		m, err := mgr.GetRESTMapper().RESTMapping(gk)
		if meta.IsNoMatchError(err) {
			logger.V(1).Info("Provider kind not installed; not watched", "kind", gk)
			continue
		}
		if err != nil {
			// Discovery of one API group failing must not stop every
			// controller: the kind is followed by the poll instead.
			logger.Error(err, "Failed to look up provider kind; not watched", "kind", gk)
			continue
		}
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(m.GroupVersionKind)
		b = b.WatchesMetadata(obj, handler.EnqueueRequestsFromMapFunc(owner), builder.WithPredicates(labelled))
	}
	return b.Complete(r)
}

// owner is the CloudVM a provider object belongs to, by its label.
func owner(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[computev1alpha1.LabelCloudVM]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: o.GetNamespace(), Name: name}}}
}

// +kubebuilder:rbac:groups=compute.meridian.dev,resources=cloudvms,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=compute.meridian.dev,resources=cloudvms/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=compute.meridian.dev,resources=cloudvms/finalizers,verbs=update
// +kubebuilder:rbac:groups=resources.azure.com,resources=resourcegroups,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=network.azure.com,resources=virtualnetworks;virtualnetworkssubnets;networkinterfaces,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=compute.azure.com,resources=virtualmachines,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=compute.cnrm.cloud.google.com,resources=computenetworks;computesubnetworks;computeinstances,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=ec2.services.k8s.aws,resources=vpcs;subnets;instances,verbs=get;list;watch;create;update;patch;delete

// Reconcile runs one pass of a CloudVM's life: it renders the decision,
// finds the provider objects, lets decide.VM choose, applies and deletes
// what it chose, and reports it in status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	vm := &computev1alpha1.CloudVM{}
	if err := r.Client.Get(ctx, req.NamespacedName, vm); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("failed to get CloudVM %s: %w", req, err)
	}
	deleting := !vm.DeletionTimestamp.IsZero()
	if deleting && !controllerutil.ContainsFinalizer(vm, Finalizer) {
		return ctrl.Result{}, nil
	}
	if !deleting && controllerutil.AddFinalizer(vm, Finalizer) {
		if err := r.Client.Update(ctx, vm); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add finalizer to CloudVM %s: %w", req, err)
		}
	}
	before := vm.DeepCopy()
	var events []announcement
	var accounted *accounting
	defer func() {
		vm.Status.ObservedGeneration = vm.Generation
		if !equality.Semantic.DeepEqual(before.Status, vm.Status) {
			patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
			err := r.Client.Status().Patch(ctx, vm, patch)
			if client.IgnoreNotFound(err) != nil {
				retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of CloudVM %s: %w", req, err))
				return
			}
			if err != nil {
				return // the CloudVM is gone
			}
		}
		// Counted only once the status holding the figure is written: a
		// pass whose write fails counts nothing, and the next one finds
		// nothing recorded and accounts again.
		accounted.count()
		r.announce(vm, events)
	}()

	now := r.Clock.Now()
	rendered, renderErr := render(vm)
	existing, err := r.observe(ctx, vm, rendered)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list provider objects of CloudVM %s: %w", req, err)
	}
	p := decide.VM(input(vm, rendered, renderErr, existing, now, r.Timing))
	a := r.act(ctx, vm, p, rendered, existing)
	events = report(vm, p, a, rendered, existing)
	if err := a.err(); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to write provider objects of CloudVM %s: %w", req, err)
	}
	if p.RemoveFinalizer {
		controllerutil.RemoveFinalizer(vm, Finalizer)
		if err := r.Client.Update(ctx, vm); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to remove finalizer of CloudVM %s: %w", req, err)
		}
		log.FromContext(ctx).Info("Provider objects deleted; CloudVM released")
		return ctrl.Result{}, nil
	}
	again, accountEvents, counted := r.account(ctx, vm, now)
	events, accounted = append(events, accountEvents...), counted
	return ctrl.Result{RequeueAfter: soonest(p.RequeueAfter, again)}, nil
}

// soonest is the earlier of two requeue delays, zero meaning none.
func soonest(a, b time.Duration) time.Duration {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}
