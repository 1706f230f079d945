package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/policy"
	"github.com/meridian-dev/meridian/internal/sharing"
	"github.com/meridian-dev/meridian/internal/sharing/remote"
)

// Options configure the agent of one cluster.
type Options struct {
	// ClusterID is this cluster's identity as its peers know it.
	ClusterID sharingv1alpha1.ClusterID
	// Namespace holds this cluster's Peers, Reservations and auctions.
	Namespace string
	// FullInterval and PartialInterval are the seed's cadence: a Full
	// advertisement every 30 minutes, a Partial one every 10.
	FullInterval, PartialInterval time.Duration
	// TimeToLive of every advertisement; longer than PartialInterval so
	// that a renewal arrives before it passes.
	TimeToLive time.Duration
	// ChangeFraction: a change of the total cpu or memory advertised to a
	// consumer by at least this fraction is sent at once (Partial).
	ChangeFraction float64
	// PollInterval is how often a consumer's decision on an advertisement
	// is read back.
	PollInterval time.Duration
	// AuctionWindow is how long a consumer collects offers for a quote.
	AuctionWindow time.Duration
	// AuctionRetry is how long after an auction that found no offer the
	// app's pods may start another.
	AuctionRetry time.Duration
	// OfferHold is how long after a quote's deadline an offer holds its
	// capacity unless acknowledged.
	OfferHold time.Duration
	// ReservedHold is how long an acknowledged offer stays reserved unless
	// released.
	ReservedHold time.Duration
	// ClockSkew tolerated between a provider's and this cluster's clocks.
	ClockSkew time.Duration
	// PeerProbeInterval is how often each peer's API server is probed for
	// its Peer's status.
	PeerProbeInterval time.Duration
	// AllowedConsumers lists the consumers this cluster advertises to;
	// empty allows every consumer Peer.
	AllowedConsumers []string
	// KubeAPIQPS and KubeAPIBurst bound the requests to this cluster's and
	// every peer's API server: a hundred virtual nodes are some five
	// hundred requests (node, status, Lease, advertisement status), which
	// client-go's default of 5 per second would stretch to over a minute.
	KubeAPIQPS   float32
	KubeAPIBurst int
}

// AddFlags binds o to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar((*string)(&o.ClusterID), "cluster-id", "", "this cluster's ID as its peers know it (a DNS label)")
	fs.StringVar(&o.Namespace, "namespace", "meridian-system", "namespace of this cluster's Peers, Reservations and auctions")
	fs.DurationVar(&o.FullInterval, "full-interval", 30*time.Minute, "how often a Full advertisement is sent to each consumer")
	fs.DurationVar(&o.PartialInterval, "partial-interval", 10*time.Minute, "how often a Partial advertisement (availability only) is sent to each consumer")
	fs.DurationVar(&o.TimeToLive, "advertisement-ttl", 15*time.Minute, "time-to-live of every advertisement; must be longer than --partial-interval")
	fs.Float64Var(&o.ChangeFraction, "change-fraction", 0.1, "a change of the cpu or memory advertised by at least this fraction is advertised at once")
	fs.DurationVar(&o.PollInterval, "poll-interval", 5*time.Second, "how often consumers' decisions on advertisements are read back")
	fs.DurationVar(&o.AuctionWindow, "auction-window", 10*time.Second, "how long offers are collected for a quote")
	fs.DurationVar(&o.AuctionRetry, "auction-retry", time.Minute, "how long after an auction that found no offer another may start for the same pods")
	fs.DurationVar(&o.OfferHold, "offer-hold", time.Minute, "how long after a quote's deadline an unacknowledged offer holds its capacity")
	fs.DurationVar(&o.ReservedHold, "reserved-hold", 24*time.Hour, "how long an acknowledged offer stays reserved unless released")
	fs.DurationVar(&o.ClockSkew, "clock-skew", 30*time.Second, "clock difference tolerated between a provider and this cluster")
	fs.DurationVar(&o.PeerProbeInterval, "peer-probe-interval", 10*time.Second, "how often each peer's API server is probed for its Peer's Ready condition and latency")
	fs.StringSliceVar(&o.AllowedConsumers, "allowed-consumers", nil, "consumers this cluster advertises to (empty: every consumer Peer)")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", 100, "requests per second to this cluster's and each peer's API server")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", 200, "burst of requests to this cluster's and each peer's API server")
}

// Default fills the zero fields with the flags' defaults.
func (o *Options) Default() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.FullInterval, 30*time.Minute)
	def(&o.PartialInterval, 10*time.Minute)
	def(&o.TimeToLive, 15*time.Minute)
	def(&o.PollInterval, 5*time.Second)
	def(&o.AuctionWindow, 10*time.Second)
	def(&o.OfferHold, time.Minute)
	def(&o.AuctionRetry, time.Minute)
	def(&o.ReservedHold, 24*time.Hour)
	def(&o.ClockSkew, 30*time.Second)
	def(&o.PeerProbeInterval, 10*time.Second)
	if o.ChangeFraction == 0 {
		o.ChangeFraction = 0.1
	}
	if o.KubeAPIQPS == 0 {
		o.KubeAPIQPS = 100
	}
	if o.KubeAPIBurst == 0 {
		o.KubeAPIBurst = 200
	}
	if o.Namespace == "" {
		o.Namespace = "meridian-system"
	}
}

// Validate names the first field that is not valid and what would be.
func (o Options) Validate() error {
	peer := &sharingv1alpha1.Peer{Spec: sharingv1alpha1.PeerSpec{ClusterID: o.ClusterID}}
	for _, e := range sharing.Validate(peer) {
		if e.Field == "spec.clusterID" {
			return fmt.Errorf("cluster-id %q: must be a DNS label (lower-case letters, digits and '-'): %s", o.ClusterID, e.Detail)
		}
	}
	switch {
	case o.PartialInterval <= 0 || o.FullInterval < o.PartialInterval:
		return fmt.Errorf("partial-interval %s and full-interval %s: both must be positive and full at least partial", o.PartialInterval, o.FullInterval)
	case o.TimeToLive <= o.PartialInterval || o.TimeToLive > 24*time.Hour:
		return fmt.Errorf("advertisement-ttl %s: must be longer than partial-interval %s and at most 24h", o.TimeToLive, o.PartialInterval)
	case o.ChangeFraction <= 0 || o.ChangeFraction > 1:
		return fmt.Errorf("change-fraction %v: must be greater than 0 and at most 1", o.ChangeFraction)
	}
	return nil
}

// Policy evaluates the incoming policy; *policy.Engine is one.
type Policy interface {
	Eval(ctx context.Context, query string, input any) (policy.Decision, error)
}

// Setup registers the agent's controllers with mgr: the provider's
// broadcaster, reservation expiry, quote, acknowledgement and release
// handlers, every Peer's status, and the consumer's incoming policy and auctions. clk may be
// nil for the real clock.
func Setup(mgr ctrl.Manager, opts Options, pol Policy, clk clock.PassiveClock) error {
	opts.Default()
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("invalid agent options: %w", err)
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	base := &base{
		Client: mgr.GetClient(), reader: mgr.GetAPIReader(), opts: opts, clock: clk,
		remotes: remote.New(mgr.GetAPIReader(), mgr.GetScheme()),
	}
	base.book = newBook(mgr.GetClient(), mgr.GetAPIReader(), opts.Namespace)
	setups := []struct {
		name  string
		setup func(ctrl.Manager) error
	}{
		{"peer status", (&peerStatus{base}).setup},
		{"broadcaster", (&broadcaster{base}).setup},
		{"reservations", (&reservations{base}).setup},
		{"incoming", (&incoming{base: base, policy: pol}).setup},
		{"auction", (&auction{base}).setup},
		{"pending pods", (&pending{base}).setup},
		{"quotes", (&quotes{base}).setup},
		{"acknowledgements", (&acks{base}).setup},
		{"releases", (&releases{base}).setup},
	}
	for _, s := range setups {
		if err := s.setup(mgr); err != nil {
			return fmt.Errorf("failed to set up the %s controller: %w", s.name, err)
		}
	}
	return nil
}
