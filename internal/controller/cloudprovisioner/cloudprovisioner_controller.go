package cloudprovisioner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/provision"
)

// Finalizer holds a CloudProvisioner until its cloud cluster is removed.
const Finalizer = "multicluster.meridian.dev/cloud-cleanup"

// Reconciler reconciles CloudProvisioners.
type Reconciler struct {
	Client    client.Client
	Inventory *inventory.Inventory
	Recorder  events.EventRecorder
	// Backends carry decisions out, by spec.backend. A CloudProvisioner
	// whose backend is not here reports it and waits.
	Backends map[multiclusterv1alpha1.ProvisionerBackend]cloud.Backend
	// Namespace holds the kubeconfig Secrets of joined cloud clusters.
	Namespace string
	// Period is the time between two decisions.
	Period time.Duration
	// Clock is the reconciler's time; the real clock when nil.
	Clock clock.Clock

	mu sync.Mutex
	// readiness is the members' readiness last seen, and changed when it
	// last changed (or when the controller started).
	readiness map[string]bool
	changed   time.Time
	// provisioners keep each CloudProvisioner's decision history.
	provisioners map[types.UID]*provision.Provisioner
}

func (r *Reconciler) defaults() {
	r.provisioners = map[types.UID]*provision.Provisioner{}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	r.changed = r.Clock.Now()
	if r.Period == 0 {
		r.Period = 30 * time.Second
	}
}

// SetupWithManager registers the reconciler.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.defaults()
	return ctrl.NewControllerManagedBy(mgr).
		For(&multiclusterv1alpha1.CloudProvisioner{}).
		Named("cloudprovisioner").
		Complete(r)
}

// Reconcile decides and acts for one CloudProvisioner.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	cp := &multiclusterv1alpha1.CloudProvisioner{}
	if err := r.Client.Get(ctx, req.NamespacedName, cp); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("failed to get CloudProvisioner %s: %w", req, err)
	}
	if !cp.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, cp)
	}
	if controllerutil.AddFinalizer(cp, Finalizer) {
		if err := r.Client.Update(ctx, cp); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add finalizer to CloudProvisioner %s: %w", req, err)
		}
	}

	before := cp.DeepCopy()
	defer func() {
		cp.Status.ObservedGeneration = cp.Generation
		if err := r.Client.Status().Patch(ctx, cp, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of CloudProvisioner %s: %w", req, err))
		}
	}()

	active, err := r.active(ctx, cp)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to find the active CloudProvisioner: %w", err)
	}
	if !active {
		return ctrl.Result{RequeueAfter: r.Period}, nil
	}
	backend, ok := r.Backends[cp.Spec.Backend]
	if !ok {
		setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonBackendError,
			fmt.Sprintf("backend %s is not enabled in this controller (enabled: %v)", cp.Spec.Backend, r.enabled()))
		return ctrl.Result{RequeueAfter: r.Period}, nil
	}
	after, err := r.step(ctx, cp, backend)
	if errors.Is(err, errInvalidSpec) {
		setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonInvalidSpec, err.Error())
		r.Recorder.Eventf(cp, nil, "Warning", multiclusterv1alpha1.CloudReasonInvalidSpec, "Validate", "%s", err.Error())
		return ctrl.Result{}, nil
	} else if err != nil {
		setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonBackendError, err.Error())
		return ctrl.Result{}, fmt.Errorf("failed to reconcile the cloud cluster of CloudProvisioner %s: %w", req, err)
	}
	if cp.Status.Phase == multiclusterv1alpha1.PhaseDeprovisioning {
		// The backend removes the cluster: look again soon.
		after = min(r.Period, provision.Recheck)
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

func (r *Reconciler) enabled() []multiclusterv1alpha1.ProvisionerBackend {
	var out []multiclusterv1alpha1.ProvisionerBackend
	for b := range r.Backends {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// step observes the cloud cluster, finishes a removal in progress or joins
// a ready cluster, then decides and acts.
func (r *Reconciler) step(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend) (time.Duration, error) {
	spec, flavors, err := r.cloudSpec(ctx, cp)
	if err != nil {
		return 0, err
	}
	st, err := backend.Status(ctx, spec)
	if err != nil {
		return 0, fmt.Errorf("failed to read the status of cloud cluster %q: %w", spec.Name, err)
	}
	cp.Status.Nodes, cp.Status.ReadyNodes = st.Workers, st.ReadyWorkers
	retire(&spec, st, cp.Status.Pools)
	if cp.Status.Phase == multiclusterv1alpha1.PhaseDeprovisioning {
		// Reconcile looks again soon while the phase stays Deprovisioning.
		return r.Period, r.deprovision(ctx, cp, backend, spec, st)
	}
	if !st.Exists {
		if cp.Status.Phase != multiclusterv1alpha1.PhaseIdle && cp.Status.Phase != "" {
			// Gone without being asked to: start again from nothing.
			r.Recorder.Eventf(cp, nil, "Warning", "CloudClusterLost", "Observe", "cloud cluster %q no longer exists", spec.Name)
		}
		cp.Status.Phase, cp.Status.DesiredNodes, cp.Status.Pools = multiclusterv1alpha1.PhaseIdle, 0, nil
		setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonNoCluster, "no cloud cluster: the member clusters hold every replica")
	} else {
		if len(cp.Status.Pools) == 0 && cp.Status.DesiredNodes == 0 && len(spec.Pools) > 0 {
			// A cluster that exists without a recorded request (the status
			// patch was lost to a restart) is adopted as it is.
			adopt(&spec, st, max(cp.Spec.MinNodes, 1), flavors)
		}
		recordPools(cp, spec, st)
		// Re-assert the worker counts while the backend does not report
		// them, so that a lost request (or a restart between two calls)
		// converges without writing to the backend every period.
		if !st.Ready || !reported(spec, st) {
			if err := backend.Ensure(ctx, spec); err != nil {
				return 0, fmt.Errorf("failed to ensure cloud cluster %q: %w", spec.Name, err)
			}
		}
		if st.Ready {
			if err := r.join(ctx, cp, st.Kubeconfig); err != nil {
				return 0, err
			}
		}
		r.setPhase(cp, st)
	}
	cr, err := r.readCloud(ctx, cp)
	if err != nil {
		return 0, err
	}
	if st.Exists {
		forgetRemoved(&spec, cr)
		recordPools(cp, spec, st)
	}
	in, err := r.observe(ctx, cp, st, spec, flavors, cr)
	if err != nil {
		return 0, err
	}
	drains, err := r.drains(ctx, &spec, cr)
	if err != nil {
		return 0, err
	}
	p := r.provisioner(cp, flavors)
	pass := p.Pass(provision.PassInput{Input: in, Drains: drains, MembersChanged: r.membersChanged()})
	obs, d := pass.Observation, pass.Decision
	if err := r.continueDrains(ctx, cp, backend, &spec, st, obs, cr, pass.DrainSteps, pass.Drained); err != nil {
		return 0, err
	}
	if !pass.Decided {
		return pass.RequeueAfter, nil
	}
	cp.Status.DemandTrend = multiclusterv1alpha1.DemandTrend(d.Trend)
	cp.Status.EmptySince = nil
	if t := p.IdleSince(); !t.IsZero() && obs.Cloud != nil {
		cp.Status.EmptySince = &metav1.Time{Time: t}
	}
	return pass.RequeueAfter, r.act(ctx, cp, backend, spec, st, obs, d, cr)
}

// adopt gives the pools of a cluster that exists without a recorded
// request the workers the backend reports, and the pool of the flavor the
// provisioner pads with (provision.Config.PadFlavor) what it takes to
// reach minNodes.
func adopt(spec *cloud.Spec, st cloud.Status, minNodes int32, flavors []provision.Flavor) {
	cfg := provision.Config{Flavors: flavors}
	pad, _ := cfg.PadFlavor()
	live, padPool := int32(0), -1
	for i := range spec.Pools {
		for _, ps := range st.Pools {
			if ps.Name == spec.Pools[i].Name {
				spec.Pools[i].Workers = ps.Workers
			}
		}
		if _, ok := cfg.Flavor(spec.Pools[i].Name); !ok {
			continue
		}
		live += spec.Pools[i].Workers
		if spec.Pools[i].Name == pad.Name {
			padPool = i
		}
	}
	if live < minNodes && padPool >= 0 {
		spec.Pools[padPool].Workers += minNodes - live
	}
}

// reported says whether the backend reports the worker counts spec asks
// for, per pool when it reports pools, and no retired pool it should
// delete.
func reported(spec cloud.Spec, st cloud.Status) bool {
	if st.Workers != spec.Workers() {
		return false
	}
	for _, p := range spec.Pools {
		if p.Retired && p.Workers == 0 {
			return false
		}
	}
	for _, ps := range st.Pools {
		for _, p := range spec.Pools {
			if p.Name == ps.Name && p.Workers != ps.Workers {
				return false
			}
		}
	}
	return true
}

// membersChanged is when the members' readiness was last seen to change
// (or the controller started), which the pass waits provision.SettleTime
// after.
func (r *Reconciler) membersChanged() time.Time {
	now := r.Inventory.Readiness()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !maps.Equal(now, r.readiness) {
		r.readiness, r.changed = now, r.Clock.Now()
	}
	return r.changed
}

// setPhase is Ready once the joined Cluster is Ready, else Provisioning.
func (r *Reconciler) setPhase(cp *multiclusterv1alpha1.CloudProvisioner, st cloud.Status) {
	name := string(cp.Spec.CloudClusterName)
	if st.Ready && r.Inventory.Readiness()[name] {
		if cp.Status.Phase != multiclusterv1alpha1.PhaseReady {
			cp.Status.ProvisionedTime = &metav1.Time{Time: r.Clock.Now()}
			if t := cp.Status.ProvisioningStartedTime; t != nil {
				provisioningSeconds.WithLabelValues(cp.Namespace, cp.Name).Observe(r.Clock.Since(t.Time).Seconds())
			}
			r.Recorder.Eventf(cp, nil, "Normal", "Joined", "Join", "cloud cluster %q joined with %d ready nodes", name, st.ReadyWorkers)
		}
		cp.Status.Phase = multiclusterv1alpha1.PhaseReady
		setReady(cp, metav1.ConditionTrue, multiclusterv1alpha1.CloudReasonJoined, fmt.Sprintf("cloud cluster %q is a Ready member with %d of %d nodes ready", name, st.ReadyWorkers, st.Workers))
		return
	}
	cp.Status.Phase = multiclusterv1alpha1.PhaseProvisioning
	msg := st.Message
	if st.Ready {
		msg = fmt.Sprintf("waiting for Cluster %q to turn Ready", name)
	}
	setReady(cp, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonProvisioning, msg)
}

// provisioner returns cp's decision history, restoring what the status
// recorded when the controller has just started.
func (r *Reconciler) provisioner(cp *multiclusterv1alpha1.CloudProvisioner, flavors []provision.Flavor) *provision.Provisioner {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.provisioners[cp.UID]
	if !ok || !sameConfig(p.Config(), cp, flavors) {
		p = provision.New(config(cp, flavors, r.Period))
		if t := cp.Status.EmptySince; t != nil {
			p.Restore(t.Time)
		}
		r.provisioners[cp.UID] = p
	}
	return p
}

func (r *Reconciler) forget(uid types.UID) {
	r.mu.Lock()
	delete(r.provisioners, uid)
	r.mu.Unlock()
}

// active reports whether cp is the oldest CloudProvisioner, and sets its
// Active condition.
func (r *Reconciler) active(ctx context.Context, cp *multiclusterv1alpha1.CloudProvisioner) (bool, error) {
	var list multiclusterv1alpha1.CloudProvisionerList
	if err := r.Client.List(ctx, &list); err != nil {
		return false, err
	}
	oldest := cp
	for i := range list.Items {
		o := &list.Items[i]
		if o.DeletionTimestamp.IsZero() && older(o, oldest) {
			oldest = o
		}
	}
	if oldest.UID != cp.UID {
		setCondition(cp, multiclusterv1alpha1.CloudProvisionerActive, metav1.ConditionFalse, multiclusterv1alpha1.CloudReasonStandby,
			fmt.Sprintf("CloudProvisioner %s/%s is older and acts; this one stands by", oldest.Namespace, oldest.Name))
		return false, nil
	}
	setCondition(cp, multiclusterv1alpha1.CloudProvisionerActive, metav1.ConditionTrue, multiclusterv1alpha1.CloudReasonOldest, "the oldest CloudProvisioner acts")
	return true, nil
}

func older(a, b *multiclusterv1alpha1.CloudProvisioner) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
}
