package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/inventory"
)

// Finalizer holds a Cluster until Meridian's objects are removed from the
// member.
const Finalizer = "multicluster.meridian.dev/cluster-cleanup"

// Reconciler reconciles Cluster objects.
type Reconciler struct {
	Client    client.Client
	Inventory *inventory.Inventory
	Recorder  events.EventRecorder
	// Namespace is where kubeconfig Secrets without a namespace live.
	Namespace string
	// HeartbeatInterval is the time between two heartbeats of a member.
	HeartbeatInterval time.Duration
	// HeartbeatTimeout bounds one heartbeat.
	HeartbeatTimeout time.Duration
	// CleanupTimeout bounds the removal of Meridian's objects from a member
	// when its Cluster is deleted; an unreachable member does not hold the
	// deletion longer.
	CleanupTimeout time.Duration
	// TokenRenewBefore is how long before it expires a token `meridian
	// join` issued is renewed; zero renews once a third of its lifetime is
	// left (decide.TokenRenewal).
	TokenRenewBefore time.Duration
}

func (r *Reconciler) defaults() {
	if r.Namespace == "" {
		r.Namespace = "meridian-system"
	}
	if r.HeartbeatInterval == 0 {
		r.HeartbeatInterval = 10 * time.Second
	}
	if r.HeartbeatTimeout == 0 {
		r.HeartbeatTimeout = 5 * time.Second
	}
	if r.CleanupTimeout == 0 {
		r.CleanupTimeout = 30 * time.Second
	}
}

// SetupWithManager registers the reconciler; Secrets that Clusters reference
// trigger their Clusters.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.defaults()
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &multiclusterv1alpha1.Cluster{}, secretIndex, func(o client.Object) []string {
		return []string{r.secretKey(o.(*multiclusterv1alpha1.Cluster)).String()}
	}); err != nil {
		return fmt.Errorf("failed to index Clusters by Secret: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&multiclusterv1alpha1.Cluster{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.clustersOfSecret)).
		Named("cluster").
		Complete(r)
}

const secretIndex = "spec.kubeconfigSecretRef"

func (r *Reconciler) secretKey(c *multiclusterv1alpha1.Cluster) types.NamespacedName {
	ns := c.Spec.KubeconfigSecretRef.Namespace
	if ns == "" {
		ns = r.Namespace
	}
	return types.NamespacedName{Namespace: ns, Name: c.Spec.KubeconfigSecretRef.Name}
}

func (r *Reconciler) clustersOfSecret(ctx context.Context, o client.Object) []reconcile.Request {
	var list multiclusterv1alpha1.ClusterList
	key := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}.String()
	if err := r.Client.List(ctx, &list, client.MatchingFields{secretIndex: key}); err != nil {
		log.FromContext(ctx).Error(err, "Failed to list Clusters of a Secret", "secret", key)
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for _, c := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: c.Name}})
	}
	return reqs
}

// Reconcile connects to the member, sends a heartbeat and reports what it
// found.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	logger := log.FromContext(ctx)
	c := &multiclusterv1alpha1.Cluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, c); err != nil {
		if apierrors.IsNotFound(err) {
			r.Inventory.Disconnect(req.Name)
			forget(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("failed to get Cluster %q: %w", req.Name, err)
	}

	if !c.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, c)
	}
	if controllerutil.AddFinalizer(c, Finalizer) {
		if err := r.Client.Update(ctx, c); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to add finalizer to Cluster %q: %w", c.Name, err)
		}
	}

	before := c.DeepCopy()
	defer func() {
		c.Status.ObservedGeneration = c.Generation
		if err := r.Client.Status().Patch(ctx, c, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of Cluster %q: %w", c.Name, err))
		}
	}()

	ready, renewAt := r.connect(ctx, c)
	r.Inventory.SetCluster(c, ready)
	recordHealth(c.Name, ready)
	if !ready {
		logger.V(1).Info("Member not ready", "cluster", klog.KObj(c), "message", meta.FindStatusCondition(c.Status.Conditions, multiclusterv1alpha1.ClusterReady).Message)
	}
	next := r.HeartbeatInterval
	if !renewAt.IsZero() {
		next = max(min(next, time.Until(renewAt)), time.Second)
	}
	return ctrl.Result{RequeueAfter: next}, nil
}

// connect reads the kubeconfig, renews its token when it is due, connects
// the inventory and sends a heartbeat, and records the outcome in c's
// status. It reports whether the member is ready, and when its token is
// renewed next (zero for credentials Meridian did not issue).
func (r *Reconciler) connect(ctx context.Context, c *multiclusterv1alpha1.Cluster) (bool, time.Time) {
	key := r.secretKey(c)
	secret := &corev1.Secret{}
	if err := r.Client.Get(ctx, key, secret); err != nil {
		r.setReady(c, metav1.ConditionFalse, multiclusterv1alpha1.ClusterReasonKubeconfigInvalid,
			fmt.Sprintf("failed to read kubeconfig Secret %s: %v", key, err))
		return false, time.Time{}
	}
	cfg, hash, err := inventory.RESTConfigFromSecret(secret, c.Spec.KubeconfigSecretRef.Key)
	if err != nil {
		r.setReady(c, metav1.ConditionFalse, multiclusterv1alpha1.ClusterReasonKubeconfigInvalid, err.Error())
		return false, time.Time{}
	}
	token, err := r.tokenOf(secret)
	if err != nil {
		r.setReady(c, metav1.ConditionFalse, multiclusterv1alpha1.ClusterReasonKubeconfigInvalid, err.Error())
		return false, time.Time{}
	}
	var (
		renewAt       time.Time
		renewalFailed error
	)
	if token != nil {
		now := time.Now()
		if !now.Before(token.lifetime.Expires) {
			r.setReady(c, metav1.ConditionFalse, ReasonCredentialsExpired, expiredMessage(c, secret, token))
			return false, time.Time{}
		}
		renewAt = token.renewAt
		if !now.Before(renewAt) {
			renewCtx, cancel := context.WithTimeout(ctx, r.HeartbeatTimeout)
			err := r.renew(renewCtx, c, secret, cfg, token, now)
			cancel()
			if err != nil {
				// The old token still works until it expires; the next
				// heartbeat tries again.
				renewAt = time.Time{}
				renewalFailed = err
				log.FromContext(ctx).Error(err, "Failed to renew member token", "cluster", klog.KObj(c))
				if r.Recorder != nil {
					r.Recorder.Eventf(c, nil, corev1.EventTypeWarning, ReasonTokenRenewalFailed, "RenewToken", "%s", err.Error())
				}
			} else if cfg, hash, err = inventory.RESTConfigFromSecret(secret, c.Spec.KubeconfigSecretRef.Key); err != nil {
				r.setReady(c, metav1.ConditionFalse, multiclusterv1alpha1.ClusterReasonKubeconfigInvalid, err.Error())
				return false, time.Time{}
			} else if token, err = r.tokenOf(secret); err != nil {
				r.setReady(c, metav1.ConditionFalse, multiclusterv1alpha1.ClusterReasonKubeconfigInvalid, err.Error())
				return false, time.Time{}
			} else if token != nil {
				renewAt = token.renewAt
			}
		}
	}
	member, err := r.Inventory.Connect(ctx, c.Name, cfg, hash)
	if err != nil {
		r.setReady(c, metav1.ConditionFalse, multiclusterv1alpha1.ClusterReasonUnreachable, err.Error())
		return false, renewAt
	}
	version, err := member.Heartbeat(ctx, r.HeartbeatTimeout)
	if err != nil {
		r.setReady(c, metav1.ConditionFalse, multiclusterv1alpha1.ClusterReasonUnreachable, err.Error())
		return false, renewAt
	}

	probeCtx, cancel := context.WithTimeout(ctx, r.HeartbeatTimeout)
	err = r.observeProbe(probeCtx, c, member)
	cancel()
	if err != nil {
		log.FromContext(ctx).Error(err, "Failed to read the member's latency prober", "cluster", klog.KObj(c))
	}
	now := metav1.Now()
	sum := member.Summary()
	recordCapacity(c.Name, sum)
	c.Status.LastHeartbeatTime = &now
	c.Status.KubernetesVersion = version
	c.Status.NodeCount = sum.Nodes
	c.Status.Capacity = sum.Capacity
	c.Status.Allocatable = sum.Allocatable
	c.Status.Allocated = sum.Allocated
	msg := fmt.Sprintf("member answered; %d nodes, %s CPU allocatable", sum.Nodes, sum.Allocatable.Cpu())
	if renewalFailed != nil {
		msg += fmt.Sprintf("; renewing its token failed (it expires at %s): %v", token.lifetime.Expires.UTC().Format(time.RFC3339), renewalFailed)
	}
	r.setReady(c, metav1.ConditionTrue, multiclusterv1alpha1.ClusterReasonConnected, msg)
	return true, renewAt
}

func (r *Reconciler) setReady(c *multiclusterv1alpha1.Cluster, status metav1.ConditionStatus, reason, message string) {
	prev := meta.FindStatusCondition(c.Status.Conditions, multiclusterv1alpha1.ClusterReady)
	if r.Recorder != nil && (prev == nil || prev.Status != status) {
		kind := corev1.EventTypeNormal
		if status != metav1.ConditionTrue {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(c, nil, kind, reason, "Heartbeat", "%s", message)
	}
	conditions.SetStatus(&c.Status.Conditions, c.Generation, multiclusterv1alpha1.ClusterReady, status, reason, message)
}
