package multiclusterdeployment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/traffic"
	"github.com/meridian-dev/meridian/internal/workload"
)

// Finalizer holds a MultiClusterDeployment until its member Deployments are
// removed.
const Finalizer = "multicluster.meridian.dev/member-cleanup"

// Kind is the owner kind written on member objects.
const Kind = "MultiClusterDeployment"

// Reconciler reconciles MultiClusterDeployments.
type Reconciler struct {
	Client client.Client
	// APIReader reads what is read too rarely to cache (PodDisruptionBudgets);
	// Client when nil.
	APIReader   client.Reader
	Inventory   inventory.View
	Framework   *placement.Framework
	Assumptions *placement.Assumptions
	Recorder    events.EventRecorder
	// PendingGrace is how long a replica may stay Unschedulable in a member
	// before the overflow is placed elsewhere.
	PendingGrace time.Duration
	// FailoverGrace is how long a member may be not ready before its
	// replicas are placed elsewhere; zero holds them until it returns.
	FailoverGrace time.Duration
	// Resync is the time between two passes of a settled workload.
	Resync time.Duration
	// MoveCheck is the time between two checks while a move waits for new
	// replicas to be ready.
	MoveCheck time.Duration
	// Traffic is where TrafficAware workloads' traffic is read; nil places
	// them without traffic and says so in their status.
	Traffic traffic.Source
	// TrafficInterval is the time between two traffic readings of a
	// workload; placement follows the traffic at this pace.
	TrafficInterval time.Duration
	// UnplacedRetry is the time between two passes while replicas fit no
	// cluster.
	UnplacedRetry time.Duration
	// Carbon returns the grid zones' carbon intensities now and forecast
	// (the carbon scheduler's latest snapshot) that the Carbon score plugin
	// reads; nil, or a nil result, places without them.
	Carbon func() placement.CarbonIntensity
	// Clock is the reconciler's time; the real clock when nil.
	Clock clock.Clock
	// MaxConcurrentReconciles is how many workloads are reconciled at once
	// (8 when zero). Their decisions still take turns (Assumptions.Turn),
	// so that two never promise the same room; their reads and writes
	// overlap.
	MaxConcurrentReconciles int

	mu sync.Mutex
	// lastPullBack is when each workload's replicas were last considered
	// for a move back home.
	lastPullBack map[string]time.Time
	// readings are the TrafficAware workloads' last traffic readings.
	readings map[string]reading
	// foreign are, per workload key, the members found to hold their own
	// Deployment of its name (decide.Member.Foreign).
	foreign map[string]map[string]bool
}

func (r *Reconciler) defaults() {
	r.lastPullBack = map[string]time.Time{}
	r.readings = map[string]reading{}
	r.foreign = map[string]map[string]bool{}
	if r.Assumptions == nil {
		r.Assumptions = placement.NewAssumptions()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	d := decide.DefaultTiming
	r.PendingGrace = cmp.Or(r.PendingGrace, d.PendingGrace)
	r.Resync = cmp.Or(r.Resync, d.Resync)
	r.MoveCheck = cmp.Or(r.MoveCheck, d.MoveCheck)
	r.UnplacedRetry = cmp.Or(r.UnplacedRetry, d.UnplacedRetry)
	r.TrafficInterval = cmp.Or(r.TrafficInterval, d.TrafficInterval)
	r.MaxConcurrentReconciles = cmp.Or(r.MaxConcurrentReconciles, 8)
}

// SetupWithManager registers the reconciler. Besides the objects
// themselves, changes of member Deployments and pods re-reconcile their
// owner, and a change of a member's capacity or health re-reconciles every
// MultiClusterDeployment.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.defaults()
	clusters := source.Channel(r.Inventory.Subscribe(), handler.EnqueueRequestsFromMapFunc(r.clusterChanged))
	return ctrl.NewControllerManagedBy(mgr).
		For(&multiclusterv1alpha1.MultiClusterDeployment{}).
		WatchesRawSource(r.Inventory.OwnerSource(Kind)).
		WatchesRawSource(clusters).
		// A re-scheduler's spec matters to every workload; its status,
		// which the workloads themselves write, does not.
		Watches(&multiclusterv1alpha1.MultiClusterRescheduler{}, handler.EnqueueRequestsFromMapFunc(r.all),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("multiclusterdeployment").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Complete(r)
}

func (r *Reconciler) all(ctx context.Context, _ client.Object) []reconcile.Request {
	return r.matching(ctx, func(*multiclusterv1alpha1.MultiClusterDeployment) bool { return true })
}

// clusterChanged maps a change of a member to the workloads it concerns.
// The first word of a member, and a change of its readiness, concern every
// workload (failover, members coming back, the first connection). A change
// of its capacity alone concerns only the workloads that wait for room
// (decide.WaitsForRoom, the simulator's rule too). Placed workloads look
// again at their resync; re-reconciling all of them at every change of any
// member's pods kept thousands of settled workloads in the queue ahead of
// new ones.
func (r *Reconciler) clusterChanged(ctx context.Context, obj client.Object) []reconcile.Request {
	if inventory.ReadinessChanged(obj) {
		return r.all(ctx, obj)
	}
	return r.matching(ctx, waitsForRoom)
}

// waitsForRoom reads decide.WaitsForRoom's input from the status: a pass
// placed the current spec when the status is of its generation and says
// whether it was placed.
func waitsForRoom(d *multiclusterv1alpha1.MultiClusterDeployment) bool {
	return decide.WaitsForRoom(decide.Progress{
		Decided:  d.Status.ObservedGeneration == d.Generation && meta.FindStatusCondition(d.Status.Conditions, multiclusterv1alpha1.ConditionPlaced) != nil,
		Unplaced: d.Status.UnplacedReplicas,
		Pending:  meta.IsStatusConditionTrue(d.Status.Conditions, multiclusterv1alpha1.ConditionReplicasPending),
	})
}

// matching returns a request for every MultiClusterDeployment keep holds
// for.
func (r *Reconciler) matching(ctx context.Context, keep func(*multiclusterv1alpha1.MultiClusterDeployment) bool) []reconcile.Request {
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	// The cache's objects are shared, not copies: only read them.
	if err := r.Client.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list MultiClusterDeployments after a cluster change")
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		if keep(&list.Items[i]) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return reqs
}

// Reconcile places, propagates and reports one MultiClusterDeployment.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{}
	if err := r.Client.Get(ctx, req.NamespacedName, mcd); err != nil {
		if apierrors.IsNotFound(err) {
			r.Assumptions.Forget(Key(req.Namespace, req.Name))
			r.forgetTraffic(Key(req.Namespace, req.Name))
			r.mu.Lock()
			delete(r.foreign, Key(req.Namespace, req.Name))
			r.mu.Unlock()
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("failed to get MultiClusterDeployment %s: %w", req, err)
	}
	if !mcd.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, mcd)
	}
	if controllerutil.AddFinalizer(mcd, Finalizer) {
		if err := r.Client.Update(ctx, mcd); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add finalizer to MultiClusterDeployment %s: %w", req, err)
		}
	}

	before := mcd.DeepCopy()
	defer func() {
		setReady(mcd)
		// A settled workload's pass changes nothing: skip the write, which
		// at thousands of workloads would be most of the API server's load.
		if equality.Semantic.DeepEqual(before.Status, mcd.Status) {
			return
		}
		if err := r.Client.Status().Patch(ctx, mcd, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of MultiClusterDeployment %s: %w", req, err))
		}
	}()

	return r.Pass(ctx, &Subject{MCD: mcd, Owner: propagation.OwnerOfDeployment(mcd), Regarding: mcd})
}

// Subject is what one pass places: a MultiClusterDeployment, or a plain
// Deployment, StatefulSet or ReplicaSet seen as one (the
// ResourcePlacement controller's view of it).
type Subject struct {
	// MCD is the spec the pass reads and the status it writes.
	MCD *multiclusterv1alpha1.MultiClusterDeployment
	// Owner is whose labels the member Deployments and their pods carry;
	// the placement key is its workload key.
	Owner propagation.Owner
	// Regarding is the object the pass's events are about.
	Regarding runtime.Object
	// Kind is the kind of the member workloads (a plain template's);
	// zero is Deployment.
	Kind schema.GroupVersionKind
	// Build, when set, returns the member workload of Kind for cluster
	// holding replicas (a plain template's copy, a policy's overrides
	// applied); an error keeps the member's workload as it is and fails
	// the write. It may be called for several members at once. When nil
	// the member workload is MCD's Deployment.
	Build func(cluster string, replicas int32) (client.Object, error)
	// Current is set by the pass: the members' replicas (their workloads'
	// status.replicas, the pods they made), summed over the ready members.
	Current int32
	// Updated is set by the pass: the members' replicas of their current
	// template, summed over the ready members.
	Updated int32
	// Reported is set by the pass once it reported what the members hold
	// (Current, Updated, Settled and the status are then theirs).
	Reported bool
	// Settled is set by the pass: every member that should hold replicas
	// has a Deployment of the current spec, which its controller observed,
	// so that the members' counts describe the current spec.
	Settled bool
}

// Key is the subject's placement key.
func (s *Subject) Key() string { return workload.Key(s.Owner.Kind, s.Owner.Namespace, s.Owner.Name) }

// kind is the member workloads' kind.
func (s *Subject) kind() schema.GroupVersionKind {
	if s.Kind.Empty() {
		return appsv1.SchemeGroupVersion.WithKind("Deployment")
	}
	return s.Kind
}

// build returns the member workload for cluster holding replicas.
func (s *Subject) build(cluster string, replicas int32) (client.Object, error) {
	if s.Build == nil {
		return propagation.DeploymentOwnedBy(s.MCD, s.Owner, replicas), nil
	}
	return s.Build(cluster, replicas)
}

// Pass observes the members, places, propagates and reports one subject,
// writing its status into s.MCD.Status; the caller writes the status where
// it belongs.
func (r *Reconciler) Pass(ctx context.Context, s *Subject) (ctrl.Result, error) {
	members, err := r.observe(ctx, s)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to observe members of %s: %w", s.Key(), err)
	}
	w, err := workloadOf(s.Key(), s.MCD)
	if err != nil {
		r.reportInvalid(s, err)
		return ctrl.Result{}, reconcile.TerminalError(err) // the spec must change first; the update will trigger us
	}
	plan, err := r.place(ctx, s, w, members)
	switch {
	case err != nil && decide.InvalidSpec(err):
		r.reportInvalid(s, err)
		return ctrl.Result{}, reconcile.TerminalError(err)
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("failed to place %s: %w", s.Key(), err)
	}
	prop := r.propagate(ctx, s, plan, members)
	r.report(s, plan, members, prop)
	if prop.err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to propagate %s: %w", s.Key(), prop.err)
	}
	return ctrl.Result{RequeueAfter: plan.AfterWrite(prop.waiting)}, nil
}

// timing is the decision's timing from the reconciler's settings.
func (r *Reconciler) timing() decide.Timing {
	return decide.Timing{
		PendingGrace: r.PendingGrace, FailoverGrace: r.FailoverGrace,
		Resync: r.Resync, MoveCheck: r.MoveCheck, UnplacedRetry: r.UnplacedRetry,
		TrafficInterval: r.TrafficInterval,
	}
}
