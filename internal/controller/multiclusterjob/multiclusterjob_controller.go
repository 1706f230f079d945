package multiclusterjob

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/workload"
)

// Kind is the owner kind written on member objects.
const Kind = "MultiClusterJob"

// Finalizer holds a MultiClusterJob until its member Jobs are removed.
const Finalizer = "multicluster.meridian.dev/job-cleanup"

// Reconciler reconciles MultiClusterJobs.
type Reconciler struct {
	Client      client.Client
	Inventory   inventory.View
	Framework   *placement.Framework
	Assumptions *placement.Assumptions
	Recorder    events.EventRecorder
	// Retry is the time between two placement attempts while parallel pods
	// fit no cluster.
	Retry time.Duration
	// PendingGrace is how long a member Job's pods may stay Unschedulable
	// before the member Job, if none of its pods ran, is placed elsewhere.
	PendingGrace time.Duration
	// Carbon returns the grid zones' carbon intensities now and forecast
	// (the carbon scheduler's latest snapshot) that the Carbon score plugin
	// reads; nil, or a nil result, places without them.
	Carbon func() placement.CarbonIntensity
	// Clock is the reconciler's time; the real clock when nil.
	Clock clock.Clock
	// Intensities reads the carbon intensity of the hours a completed job
	// ran, to account its emissions in status.emissions; nil accounts
	// nothing.
	Intensities carbon.Source
	// Energy is the accounting's energy model; the zero value means
	// carbon.DefaultEnergyModel (the carbon scheduler's).
	Energy carbon.EnergyModel
	// EmissionsTiming says when the accounting reads; zero fields take
	// decide.DefaultEmissionsTiming's.
	EmissionsTiming decide.EmissionsTiming
}

// SetupWithManager registers the reconciler. Changes of member Jobs and
// their pods re-reconcile their owner, and a change of a member's capacity
// re-reconciles the jobs whose parallel pods wait for room.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Assumptions == nil {
		r.Assumptions = placement.NewAssumptions()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	r.Retry = cmp.Or(r.Retry, decide.DefaultTiming.UnplacedRetry)
	r.PendingGrace = cmp.Or(r.PendingGrace, decide.DefaultTiming.PendingGrace)
	if r.Energy.WattsPerVCPU == 0 && r.Energy.WattsPerGiB == 0 {
		r.Energy = carbon.DefaultEnergyModel
	}
	r.EmissionsTiming.Settle = cmp.Or(r.EmissionsTiming.Settle, decide.DefaultEmissionsTiming.Settle)
	r.EmissionsTiming.Retry = cmp.Or(r.EmissionsTiming.Retry, decide.DefaultEmissionsTiming.Retry)
	r.EmissionsTiming.GiveUp = cmp.Or(r.EmissionsTiming.GiveUp, decide.DefaultEmissionsTiming.GiveUp)
	clusters := source.Channel(r.Inventory.Subscribe(), handler.EnqueueRequestsFromMapFunc(r.waiting))
	return ctrl.NewControllerManagedBy(mgr).
		For(&multiclusterv1alpha1.MultiClusterJob{}).
		WatchesRawSource(r.Inventory.OwnerSource(Kind)).
		WatchesRawSource(clusters).
		Named("multiclusterjob").
		Complete(r)
}

// waiting lists the jobs with parallel pods that found no cluster
// (decide.WaitsForRoom; a job's own changes re-queue it, so its last pass
// counts as decided).
func (r *Reconciler) waiting(ctx context.Context, _ client.Object) []reconcile.Request {
	var list multiclusterv1alpha1.MultiClusterJobList
	if err := r.Client.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list MultiClusterJobs after a cluster change")
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		if j := &list.Items[i]; decide.WaitsForRoom(decide.Progress{Decided: true, Unplaced: j.Status.UnplacedReplicas}) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(j)})
		}
	}
	return reqs
}

// Reconcile places the parallel pods of a job that have no member Job yet,
// creates and moves member Jobs, and reports them.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	mcj := &multiclusterv1alpha1.MultiClusterJob{}
	if err := r.Client.Get(ctx, req.NamespacedName, mcj); err != nil {
		if apierrors.IsNotFound(err) {
			r.Assumptions.Forget(workload.Key(Kind, req.Namespace, req.Name))
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("failed to get MultiClusterJob %s: %w", req, err)
	}
	if !mcj.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, mcj)
	}
	if controllerutil.AddFinalizer(mcj, Finalizer) {
		if err := r.Client.Update(ctx, mcj); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add finalizer to MultiClusterJob %s: %w", req, err)
		}
	}
	before := mcj.DeepCopy()
	var accounted *jobAccounting
	defer func() {
		mcj.Status.ObservedGeneration = mcj.Generation
		setReady(mcj)
		patch := client.MergeFrom(before)
		if accounted != nil {
			// A pass that read a stale copy, without the figure a pass
			// just wrote, must not record and count it again.
			patch = client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
		}
		err := r.Client.Status().Patch(ctx, mcj, patch)
		if client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of MultiClusterJob %s: %w", req, err))
			return
		}
		// Counted only once the status holding the figure is written.
		if accounted != nil && err == nil {
			accounted.count()
			r.event(mcj, corev1.EventTypeNormal, "EmissionsAccounted", "%s", accounted.message)
		}
	}()

	s := &Subject{MCJ: mcj, Owner: propagation.OwnerOfJob(mcj), Regarding: mcj}
	res, err := r.Pass(ctx, s)
	if err != nil || !s.Observed {
		return res, err
	}
	again, a, err := r.account(ctx, mcj, r.Clock.Now())
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to account the emissions of MultiClusterJob %s: %w", req, err)
	}
	accounted = a
	return ctrl.Result{RequeueAfter: soonest(res.RequeueAfter, again)}, nil
}

// Subject is what one pass places: a MultiClusterJob, or a plain Job seen
// as one (the ResourcePlacement controller's view of it).
type Subject struct {
	// MCJ is the spec the pass reads and the status it writes.
	MCJ *multiclusterv1alpha1.MultiClusterJob
	// Owner is whose labels the member Jobs and their pods carry; the
	// placement key is its workload key.
	Owner propagation.Owner
	// Regarding is the object the pass's events are about.
	Regarding runtime.Object
	// Build, when set, returns the member Job for cluster running share
	// (a plain Job's copy, a policy's overrides applied); an error fails
	// that member's write. When nil the member Job is MCJ's.
	Build func(cluster string, share decide.JobShare) (*batchv1.Job, error)
	// Observed is set by the pass: every member that may hold the job's
	// Jobs was read, so the pass decided and reported.
	Observed bool
}

// Key is the subject's placement key.
func (s *Subject) Key() string { return workload.Key(s.Owner.Kind, s.Owner.Namespace, s.Owner.Name) }

// build returns the member Job for cluster running share.
func (s *Subject) build(cluster string, share decide.JobShare) (*batchv1.Job, error) {
	if s.Build == nil {
		return propagation.Job(s.MCJ, share.Parallelism, share.Completions), nil
	}
	return s.Build(cluster, share)
}

// Pass observes the members, places the parallel pods that have no member
// Job, writes the member Jobs and reports them into s.MCJ.Status; the
// caller writes the status where it belongs. While members that may hold
// the job's Jobs are not connected, it decides nothing (s.Observed stays
// false) and asks to be called again after memberWait.
func (r *Reconciler) Pass(ctx context.Context, s *Subject) (ctrl.Result, error) {
	mcj := s.MCJ
	members, err := r.observe(ctx, s)
	var waiting *notObservedError
	if errors.As(err, &waiting) {
		log.FromContext(ctx).V(1).Info("waiting for members to connect before deciding", "members", waiting.members)
		return ctrl.Result{RequeueAfter: memberWait}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to observe members of %s: %w", s.Key(), err)
	}
	s.Observed = true
	var after time.Duration
	if !finished(mcj) {
		p, err := r.place(ctx, s, members)
		switch {
		case err != nil && decide.InvalidSpec(err):
			setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec, err.Error())
			r.event(s.Regarding, corev1.EventTypeWarning, multiclusterv1alpha1.ReasonInvalidSpec, "%s", err.Error())
			return ctrl.Result{}, reconcile.TerminalError(err)
		case err != nil:
			return ctrl.Result{}, fmt.Errorf("failed to place %s: %w", s.Key(), err)
		}
		if err := r.act(ctx, s, p, members); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to write member Jobs of %s: %w", s.Key(), err)
		}
		after = p.RequeueAfter
	}
	r.report(mcj, members)
	views := make(map[string]decide.JobMember, len(members))
	for name, m := range members {
		views[name] = m.JobMember
	}
	if decide.JobStarted(views) {
		// Every member Job runs its pods, which the members now count: the
		// reservation has done its work, and must not outlive the pods.
		r.Assumptions.Forget(s.Key())
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// soonest is the earlier of two requeue delays, zero meaning none.
func soonest(a, b time.Duration) time.Duration {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// finished reports whether the job completed or failed.
func finished(mcj *multiclusterv1alpha1.MultiClusterJob) bool {
	return meta.IsStatusConditionTrue(mcj.Status.Conditions, multiclusterv1alpha1.ConditionComplete) ||
		meta.IsStatusConditionTrue(mcj.Status.Conditions, multiclusterv1alpha1.ConditionFailed)
}
