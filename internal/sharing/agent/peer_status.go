package agent

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing/remote"
)

// peerStatus probes every Peer's API server with its credentials and
// writes the Ready condition, the phase, the last time it answered and the
// round-trip time (which breaks auction ties).
type peerStatus struct{ *base }

// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=peers/status,verbs=get;update;patch

func (r *peerStatus) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("sharing-peer-status").
		For(&sharingv1alpha1.Peer{}, builder.WithPredicates(
			predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == r.opts.Namespace }),
			predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// probe is the outcome of one call to a peer's API server.
type probe struct {
	// Err is why the call failed, nil when it answered.
	Err error
	// Unauthorized: the server answered 401 or 403 to the credentials.
	Unauthorized bool
	// RTT is the call's round-trip time.
	RTT time.Duration
}

// peerState is the status a Peer gets from a probe at now; the conditions
// keep their last transition time when they do not change.
func peerState(peer *sharingv1alpha1.Peer, p probe, now time.Time) sharingv1alpha1.PeerStatus {
	st := *peer.Status.DeepCopy()
	st.ObservedGeneration = peer.Generation
	ready := metav1.Condition{Type: sharingv1alpha1.PeerReady, ObservedGeneration: peer.Generation}
	switch {
	case peer.Spec.Disabled:
		st.Phase = sharingv1alpha1.PeerDisabled
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, sharingv1alpha1.PeerReasonDisabled, "spec.disabled is set"
	case p.Unauthorized:
		st.Phase = sharingv1alpha1.PeerUnreachable
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, sharingv1alpha1.PeerReasonCredentialsInvalid, p.Err.Error()
	case p.Err != nil:
		st.Phase = sharingv1alpha1.PeerUnreachable
		if st.LastSeenTime == nil {
			st.Phase = sharingv1alpha1.PeerPending
		}
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, sharingv1alpha1.PeerReasonUnreachable, p.Err.Error()
	default:
		st.Phase = sharingv1alpha1.PeerEstablished
		seen := metav1.NewTime(now)
		st.LastSeenTime = &seen
		st.Latency = &metav1.Duration{Duration: p.RTT.Round(time.Millisecond)}
		ready.Status, ready.Reason, ready.Message = metav1.ConditionTrue, sharingv1alpha1.PeerReasonConnected, fmt.Sprintf("answered in %s", p.RTT.Round(time.Millisecond))
	}
	meta.SetStatusCondition(&st.Conditions, ready)
	return st
}

// Reconcile probes one peer and comes back every PeerProbeInterval.
func (r *peerStatus) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	peer := &sharingv1alpha1.Peer{}
	if err := r.Get(ctx, req.NamespacedName, peer); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var p probe
	if !peer.Spec.Disabled {
		p = r.probe(ctx, peer)
	}
	patch := client.MergeFrom(peer.DeepCopy())
	peer.Status = peerState(peer, p, r.clock.Now())
	if err := r.Status().Patch(ctx, peer, patch); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to write the status of peer %s: %w", klog.KObj(peer), err)
	}
	return ctrl.Result{RequeueAfter: r.opts.PeerProbeInterval}, nil
}

// probe asks the peer's API server for its version with the peer's
// credentials.
func (r *peerStatus) probe(ctx context.Context, peer *sharingv1alpha1.Peer) probe {
	var secret corev1.Secret
	if err := r.reader.Get(ctx, client.ObjectKey{Namespace: peer.Namespace, Name: peer.Spec.CredentialsSecretRef.Name}, &secret); err != nil {
		return probe{Err: fmt.Errorf("failed to read credentials Secret %q: %w", peer.Spec.CredentialsSecretRef.Name, err), Unauthorized: true}
	}
	cfg, _, err := remote.KubeconfigOf(peer, &secret)
	if err != nil {
		return probe{Err: err, Unauthorized: true}
	}
	cfg.Timeout = 5 * time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return probe{Err: fmt.Errorf("failed to build a discovery client: %w", err)}
	}
	start := time.Now()
	_, err = dc.ServerVersion()
	rtt := time.Since(start)
	if err != nil {
		return probe{Err: fmt.Errorf("failed to reach %s: %w", cfg.Host, err), Unauthorized: apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err)}
	}
	return probe{RTT: rtt}
}
