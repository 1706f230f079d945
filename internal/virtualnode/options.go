package virtualnode

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// Labels and annotations this package puts on the objects it makes, beside
// sharing's well-known labels.
const (
	// LabelOriginUID is on every twin and every reflected ConfigMap or
	// Secret, with the UID of the consumer object it copies; a restarted
	// agent finds its twins by it, never by a name it remembers.
	LabelOriginUID = "sharing.meridian.dev/origin-uid"
	// AnnotationOrigin is "<namespace>/<name>" of the consumer object a twin
	// copies.
	AnnotationOrigin = "sharing.meridian.dev/origin"
	// AnnotationAdvertisementNamespace is on every virtual node with the
	// namespace of its Advertisement (the label holds the name, which is
	// unique only within a namespace).
	AnnotationAdvertisementNamespace = "sharing.meridian.dev/advertisement-namespace"

	// PodReflected is the consumer pod's condition type that is True once
	// its twin was created in the provider; a pod with it whose twin is gone
	// lost its twin, rather than not having one yet.
	PodReflected corev1.PodConditionType = "sharing.meridian.dev/Reflected"

	// Reasons a consumer pod, or a virtual node, reports.
	ReasonTwinDeleted       = "ProviderPodDeleted"
	ReasonPeerNotFound      = "PeerNotFound"
	ReasonPeerUnreachable   = "PeerUnreachable"
	ReasonExpired           = "AdvertisementExpired"
	ReasonNotAccepted       = "AdvertisementNotAccepted"
	ReasonProviderReachable = "ProviderReachable"
)

// Sentinel errors of Setup.
var (
	// ErrNoConsumerID: Options.ConsumerID is empty, so twins could not be
	// attributed to this cluster in the provider's ledger.
	ErrNoConsumerID = errors.New("virtualnode: Options.ConsumerID is required")
	// ErrNoProviderID: Options.ProviderID is empty, so pods bound to which
	// virtual nodes go to this provider is unknown.
	ErrNoProviderID = errors.New("virtualnode: Options.ProviderID is required")
)

// Options configure the virtual nodes and the pod reflection of one
// consumer and one provider.
type Options struct {
	// ConsumerID is this (the consumer) cluster's ID as the provider knows
	// it: the value of sharing.LabelConsumer on twins and part of the twin
	// namespaces' names.
	ConsumerID sharingv1alpha1.ClusterID
	// ProviderID is the provider's cluster ID: pods bound to virtual nodes
	// labelled with it are reflected into the provider manager's cluster.
	ProviderID sharingv1alpha1.ClusterID
	// AuctionNamespace holds this consumer's auctions (the agent's
	// namespace) and ProviderNamespace is where this consumer writes in the
	// provider (its Acknowledgements and Releases); with both set, the
	// auctions won from the provider become virtual nodes too.
	AuctionNamespace, ProviderNamespace string
	// BrokerOffer, when set, reads the winning offer of quote, an auction
	// a broker ran for this consumer, from where the broker handed it over
	// (the consumer's namespace at the broker); nil when there is none.
	// With it, an auction the broker won from this provider becomes
	// virtual nodes too.
	BrokerOffer func(ctx context.Context, quote string) (*sharingv1alpha1.Offer, error)
	// Slice bounds the virtual nodes made from one advertisement.
	Slice sharing.SliceOptions
	// ClockSkew is how far ahead of this cluster's clock a provider's
	// timestamp may be before its advertisement counts as expired.
	ClockSkew time.Duration
	// LeaseDuration is the virtual nodes' Lease duration; the lease is
	// renewed every quarter of it (40 s, renewed every 10 s, as kubelet).
	LeaseDuration time.Duration
	// NodeStatusInterval is the longest time between two updates of a
	// virtual node's Ready heartbeat when nothing changes (1 min).
	NodeStatusInterval time.Duration
	// DrainPoll is how often a draining node is looked at until its pods
	// are gone (1 s).
	DrainPoll time.Duration
	// MaxConcurrentReconciles of each controller (8): virtual nodes of many
	// advertisements come up in parallel.
	MaxConcurrentReconciles int
	// Kubelet is where the consumer's API server reaches the virtual
	// nodes' kubelet endpoint (package kubeletproxy), written into every
	// node's addresses and daemon endpoints; zero when the agent serves
	// none, and `kubectl logs` and `exec` on an offloaded pod then fail.
	Kubelet KubeletEndpoint
	// Clock is the time source; nil means the real clock.
	Clock clock.PassiveClock
}

// KubeletEndpoint is the address and port of the virtual nodes' kubelet
// endpoint.
type KubeletEndpoint struct {
	// Address is an IP address, the nodes' InternalIP.
	Address string
	// Port is the nodes' status.daemonEndpoints.kubeletEndpoint.Port.
	Port int32
}

func (o *Options) defaults() error {
	if o.ConsumerID == "" {
		return ErrNoConsumerID
	}
	if o.ProviderID == "" {
		return ErrNoProviderID
	}
	if o.ClockSkew == 0 {
		o.ClockSkew = 30 * time.Second
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = 40 * time.Second
	}
	if o.NodeStatusInterval == 0 {
		o.NodeStatusInterval = time.Minute
	}
	if o.DrainPoll == 0 {
		o.DrainPoll = time.Second
	}
	if o.MaxConcurrentReconciles == 0 {
		o.MaxConcurrentReconciles = 8
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return nil
}

// Setup registers, on the consumer's manager, the virtual node controller
// for the advertisements of opts.ProviderID and the pod reflector that
// copies pods bound to those nodes into the provider's cluster through
// the provider's manager (whose cache it watches for twins). Both managers
// must be started; the agent calls Setup once per provider peer.
func Setup(consumer, provider ctrl.Manager, opts Options) error {
	if err := opts.defaults(); err != nil {
		return err
	}
	if err := (&NodeReconciler{Client: consumer.GetClient(), Options: opts}).SetupWithManager(consumer); err != nil {
		return fmt.Errorf("failed to set up virtual nodes of provider %q: %w", opts.ProviderID, err)
	}
	r := &PodReflector{
		Consumer: consumer.GetClient(), ConsumerReader: consumer.GetAPIReader(),
		Provider: provider.GetClient(), ProviderReader: provider.GetAPIReader(),
		ProviderCache: provider.GetCache(), Options: opts,
	}
	if err := r.SetupWithManager(consumer); err != nil {
		return fmt.Errorf("failed to set up pod reflection into provider %q: %w", opts.ProviderID, err)
	}
	if opts.AuctionNamespace == "" || opts.ProviderNamespace == "" {
		return nil
	}
	offers := &OfferNodeReconciler{Nodes: &NodeReconciler{Client: consumer.GetClient(), Options: opts}, ProviderReader: provider.GetAPIReader()}
	if err := offers.SetupWithManager(consumer); err != nil {
		return fmt.Errorf("failed to set up virtual nodes of auctions won from provider %q: %w", opts.ProviderID, err)
	}
	return nil
}

// ProviderCacheOptions restrict the provider manager's cache to this
// consumer's twins, so that the agent neither needs nor holds the
// provider's other pods. The agent passes them in the provider manager's
// ctrl.Options.Cache.
func ProviderCacheOptions(consumer sharingv1alpha1.ClusterID) cache.Options {
	sel := labels.SelectorFromSet(labels.Set{sharingv1alpha1.LabelConsumer: string(consumer)})
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Pod{}: {Label: sel},
	}}
}
