package multiclusterjob

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
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
	Inventory   *inventory.Inventory
	Framework   *placement.Framework
	Assumptions *placement.Assumptions
	Recorder    events.EventRecorder
	// Retry is the time between two placement attempts of a job none of
	// whose pods fits yet.
	Retry time.Duration
}

// SetupWithManager registers the reconciler; changes of member Jobs re-reconcile their owner.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Assumptions == nil {
		r.Assumptions = placement.NewAssumptions()
	}
	if r.Retry == 0 {
		r.Retry = 10 * time.Second
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&multiclusterv1alpha1.MultiClusterJob{}).
		WatchesRawSource(r.Inventory.OwnerSource(Kind)).
		Named("multiclusterjob").
		Complete(r)
}

// memberJob is what one member shows of the job.
type memberJob struct {
	job  *batchv1.Job
	done bool // Complete or Failed
	fail bool
}

// Reconcile places a new job, creates its member Jobs, and reports them.
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
	defer func() {
		mcj.Status.ObservedGeneration = mcj.Generation
		if err := r.Client.Status().Patch(ctx, mcj, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of MultiClusterJob %s: %w", req, err))
		}
	}()

	members, err := r.observe(ctx, mcj)
	if err != nil {
		return ctrl.Result{}, err
	}
	switch {
	case len(mcj.Status.Clusters) == 0 && len(members) > 0:
		// Member Jobs exist but their decision was not recorded (a restart
		// between creating them and writing status): adopt them rather than
		// place again, which would start more pods than asked for.
		adopt(mcj, members)
	case len(mcj.Status.Clusters) == 0:
		if err := r.place(ctx, mcj); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.ensureJobs(ctx, mcj, members); err != nil {
		return ctrl.Result{}, err
	}
	r.report(mcj, members)
	if started(mcj, members) {
		// Every member Job runs its pods, which the members now count: the
		// reservation has done its work, and must not outlive the pods.
		r.Assumptions.Forget(workload.Key(Kind, mcj.Namespace, mcj.Name))
	}
	if len(mcj.Status.Clusters) == 0 {
		return ctrl.Result{RequeueAfter: r.Retry}, nil
	}
	return ctrl.Result{}, nil
}

// observe reads the member Jobs Meridian made for mcj.
func (r *Reconciler) observe(ctx context.Context, mcj *multiclusterv1alpha1.MultiClusterJob) (map[string]*memberJob, error) {
	out := map[string]*memberJob{}
	owner := propagation.OwnerOfJob(mcj)
	for _, name := range r.Inventory.Members() {
		m, ok := r.Inventory.Member(name)
		if !ok {
			continue
		}
		j := &batchv1.Job{}
		err := m.Client.Get(ctx, client.ObjectKeyFromObject(mcj), j)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("failed to read Job in member %q: %w", name, err)
		}
		if o, ok := propagation.OwnerOf(j); !ok || o.Kind != Kind || (o.UID != "" && o.UID != owner.UID) {
			continue
		}
		mj := &memberJob{job: j}
		for _, c := range j.Status.Conditions {
			if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
				mj.done, mj.fail = true, c.Type == batchv1.JobFailed
			}
		}
		out[name] = mj
	}
	return out, nil
}

// place divides the job's parallel pods over the members and records the
// decision in status.clusters, from which the member Jobs are made.
func (r *Reconciler) place(ctx context.Context, mcj *multiclusterv1alpha1.MultiClusterJob) error {
	parallelism := ptr.Deref(mcj.Spec.Parallelism, 1)
	key := workload.Key(Kind, mcj.Namespace, mcj.Name)
	w, err := workload.New(key, placement.KindJob, parallelism, &mcj.Spec.Template.Spec, mcj.Spec.Placement)
	if err != nil {
		setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInvalidSpec, err.Error())
		return nil
	}
	snap := r.Inventory.SnapshotFor(nil, r.Assumptions)
	d, err := r.Framework.Place(ctx, snap, w)
	if err != nil {
		return fmt.Errorf("failed to place MultiClusterJob %s/%s: %w", mcj.Namespace, mcj.Name, err)
	}
	mcj.Status.UnplacedReplicas = d.Unplaced
	if len(d.Assignments) == 0 {
		setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInsufficientCapacity,
			fmt.Sprintf("none of the %d parallel pods fits a cluster yet; retrying every %s", parallelism, r.Retry))
		return nil
	}
	r.Assumptions.Assume(w, d)
	roles := map[string]placement.Role{}
	for _, a := range d.Assignments {
		roles[a.Cluster] = a.Role
	}
	for _, res := range d.Clusters {
		cd := multiclusterv1alpha1.ClusterDecision{Name: multiclusterv1alpha1.ClusterName(res.Cluster)}
		switch {
		case roles[res.Cluster] != "":
			cd.Reason = multiclusterv1alpha1.PlacementReason(roles[res.Cluster])
			for _, a := range d.Assignments {
				if a.Cluster == res.Cluster {
					cd.Replicas = a.Replicas
				}
			}
		case res.Filter != nil:
			cd.Reason, cd.Message = multiclusterv1alpha1.PlacementFiltered, res.Filter.Plugin+": "+res.Filter.Reason
		default:
			cd.Reason, cd.Message = multiclusterv1alpha1.PlacementNotChosen, fmt.Sprintf("passed the filters (room for %d pods) but was not needed", res.Fit)
		}
		if res.Filter == nil {
			total := res.Total
			cd.Score = &total
		}
		mcj.Status.Clusters = append(mcj.Status.Clusters, cd)
	}
	if d.Unplaced > 0 {
		setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, false, multiclusterv1alpha1.ReasonInsufficientCapacity,
			fmt.Sprintf("%d of %d parallel pods fit no cluster; the job runs with %d", d.Unplaced, parallelism, parallelism-d.Unplaced))
	} else {
		setCondition(mcj, multiclusterv1alpha1.ConditionPlaced, true, multiclusterv1alpha1.ReasonPlaced, "every parallel pod has a cluster")
	}
	if r.Recorder != nil {
		r.Recorder.Eventf(mcj, nil, corev1.EventTypeNormal, "Placed", "Place", "Pods placed: %s", summary(mcj))
	}
	return nil
}

// ensureJobs creates the member Jobs the decision asks for and that do not
// exist yet; members not connected get theirs when they are.
func (r *Reconciler) ensureJobs(ctx context.Context, mcj *multiclusterv1alpha1.MultiClusterJob, members map[string]*memberJob) error {
	var names []string
	var parallelism []int32
	for _, c := range mcj.Status.Clusters {
		if c.Replicas > 0 {
			names = append(names, string(c.Name))
			parallelism = append(parallelism, c.Replicas)
		}
	}
	shares := propagation.ShareCompletions(mcj.Spec.Completions, parallelism)
	var errs []error
	for i, name := range names {
		if members[name] != nil {
			continue
		}
		m, ok := r.Inventory.Member(name)
		if !ok {
			continue
		}
		if err := propagation.Apply(ctx, m.Client, propagation.Job(mcj, parallelism[i], shares[i])); err != nil {
			errs = append(errs, fmt.Errorf("member %q: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// report sums the member Jobs into status and sets Complete or Failed when
// every member Job has finished.
func (r *Reconciler) report(mcj *multiclusterv1alpha1.MultiClusterJob, members map[string]*memberJob) {
	st := &mcj.Status
	st.Active, st.Succeeded, st.Failed = 0, 0, 0
	st.Summary = summary(mcj)
	wanted, done, failed := 0, 0, 0
	var last *metav1.Time
	for _, c := range st.Clusters {
		if c.Replicas == 0 {
			continue
		}
		wanted++
		mj := members[string(c.Name)]
		if mj == nil {
			continue
		}
		st.Active += mj.job.Status.Active
		st.Succeeded += mj.job.Status.Succeeded
		st.Failed += mj.job.Status.Failed
		if t := mj.job.Status.StartTime; t != nil && (st.StartTime == nil || t.Before(st.StartTime)) {
			st.StartTime = t.DeepCopy()
		}
		if mj.done {
			done++
			if t := mj.job.Status.CompletionTime; t != nil && (last == nil || last.Before(t)) {
				last = t
			}
		}
		if mj.fail {
			failed++
		}
	}
	for i := range st.Clusters {
		if mj := members[string(st.Clusters[i].Name)]; mj != nil {
			st.Clusters[i].ReadyReplicas = mj.job.Status.Active
		}
	}
	switch {
	case failed > 0:
		setCondition(mcj, multiclusterv1alpha1.ConditionFailed, true, "MemberJobFailed", fmt.Sprintf("%d of %d member Jobs failed", failed, wanted))
	case wanted > 0 && done == wanted:
		setCondition(mcj, multiclusterv1alpha1.ConditionComplete, true, "AllMemberJobsComplete", fmt.Sprintf("%d member Jobs complete, %d pods succeeded", wanted, st.Succeeded))
		if last != nil {
			st.CompletionTime = last.DeepCopy()
		}
	default:
		setCondition(mcj, multiclusterv1alpha1.ConditionComplete, false, "Running", fmt.Sprintf("%d of %d member Jobs finished", done, wanted))
	}
}

// adopt records existing member Jobs as the decision.
func adopt(mcj *multiclusterv1alpha1.MultiClusterJob, members map[string]*memberJob) {
	for _, name := range slices.Sorted(maps.Keys(members)) {
		mcj.Status.Clusters = append(mcj.Status.Clusters, multiclusterv1alpha1.ClusterDecision{
			Name: multiclusterv1alpha1.ClusterName(name), Replicas: ptr.Deref(members[name].job.Spec.Parallelism, 1),
			Reason: multiclusterv1alpha1.PlacementSelected, Message: "member Job found in place",
		})
	}
}

// started reports whether every member Job of the decision exists and runs
// its parallel pods, or has finished.
func started(mcj *multiclusterv1alpha1.MultiClusterJob, members map[string]*memberJob) bool {
	for _, c := range mcj.Status.Clusters {
		if c.Replicas == 0 {
			continue
		}
		mj := members[string(c.Name)]
		if mj == nil || (!mj.done && mj.job.Status.Active < c.Replicas) {
			return false
		}
	}
	return len(mcj.Status.Clusters) > 0
}

func summary(mcj *multiclusterv1alpha1.MultiClusterJob) string {
	per := map[string]int32{}
	for _, c := range mcj.Status.Clusters {
		if c.Replicas > 0 {
			per[string(c.Name)] = c.Replicas
		}
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(per)) {
		parts = append(parts, fmt.Sprintf("%s=%d", name, per[name]))
	}
	return strings.Join(parts, ",")
}

func setCondition(mcj *multiclusterv1alpha1.MultiClusterJob, kind string, ok bool, reason, msg string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&mcj.Status.Conditions, metav1.Condition{Type: kind, Status: status, Reason: reason, Message: msg, ObservedGeneration: mcj.Generation})
}

// reconcileDelete deletes the member Jobs with their pods, then releases mcj.
func (r *Reconciler) reconcileDelete(ctx context.Context, mcj *multiclusterv1alpha1.MultiClusterJob) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(mcj, Finalizer) {
		return ctrl.Result{}, nil
	}
	members, err := r.observe(ctx, mcj)
	if err != nil {
		return ctrl.Result{}, err
	}
	for name, mj := range members {
		if !mj.job.DeletionTimestamp.IsZero() {
			continue
		}
		m, ok := r.Inventory.Member(name)
		if !ok {
			continue
		}
		if err := m.Client.Delete(ctx, mj.job, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to delete Job of %s in member %q: %w", mcj.Name, name, err)
		}
	}
	if len(members) > 0 {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	r.Assumptions.Forget(workload.Key(Kind, mcj.Namespace, mcj.Name))
	controllerutil.RemoveFinalizer(mcj, Finalizer)
	return ctrl.Result{}, client.IgnoreNotFound(r.Client.Update(ctx, mcj))
}
