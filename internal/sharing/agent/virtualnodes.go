package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/kubeletproxy"
	"github.com/meridian-dev/meridian/internal/sharing/remote"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

// SetupVirtualNodes registers the provider peers controller: for every
// provider Peer, whenever it is created, it runs package virtualnode (the
// virtual nodes of the provider's accepted advertisements and won
// auctions, and the reflection of pods bound to them) with a manager on
// the provider's API server, reached with the Peer's credentials and its
// cache limited to this consumer's twins. A Peer whose spec or credentials
// Secret changes is served anew with them (the Secret within
// providerRecheck); a Peer deleted, disabled or no
// longer a provider stops being served and its virtual nodes are deleted
// (kube-controller-manager's pod garbage collector then deletes the pods
// that were bound to them; their twins stay in the provider, which this
// cluster can no longer reach for certain). It returns where the twins of
// pods on those nodes are, for the nodes' kubelet endpoint.
func SetupVirtualNodes(mgr ctrl.Manager, opts Options, vn virtualnode.Options) (kubeletproxy.Locator, error) {
	opts.Default()
	if err := virtualnode.IndexPods(mgr); err != nil {
		return nil, err
	}
	p := &providers{
		Client: mgr.GetClient(), reader: mgr.GetAPIReader(), mgr: mgr, opts: opts, vn: vn,
		remotes: remote.New(mgr.GetAPIReader(), mgr.GetScheme()),
		running: map[types.NamespacedName]*served{}, ready: make(chan struct{}),
	}
	if err := mgr.Add(p); err != nil {
		return nil, fmt.Errorf("failed to add the provider peers runner: %w", err)
	}
	err := ctrl.NewControllerManagedBy(mgr).
		Named("sharing-provider-peers").
		For(&sharingv1alpha1.Peer{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetNamespace() == opts.Namespace
		}))).
		Complete(p)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// providers serves every provider Peer with package virtualnode and stops
// serving it when it goes. It is a Runnable of the consumer's manager, so
// that what it started stops with the manager.
type providers struct {
	client.Client
	reader client.Reader
	mgr    ctrl.Manager
	opts   Options
	vn     virtualnode.Options
	// remotes reach the broker, where won brokered offers are handed over.
	remotes *remote.Remotes

	mu      sync.Mutex
	base    context.Context
	ready   chan struct{}
	running map[types.NamespacedName]*served
	wg      sync.WaitGroup
}

// served is one provider Peer being served: version says which spec and
// credentials it was started with; config reaches the provider with them
// and twins reads this consumer's twins there (from the provider
// manager's cache).
type served struct {
	version  string
	provider sharingv1alpha1.ClusterID
	config   *rest.Config
	twins    client.Reader
	cancel   context.CancelFunc
	done     chan struct{}
}

// Start keeps the context every provider's controllers run under until the
// manager stops, then waits for them.
func (p *providers) Start(ctx context.Context) error {
	p.mu.Lock()
	p.base = ctx
	close(p.ready)
	p.mu.Unlock()
	<-ctx.Done()
	p.wg.Wait()
	return nil
}

// NeedLeaderElection: only the leader serves providers, as only it runs
// the controllers that would.
func (p *providers) NeedLeaderElection() bool { return true }

// providerRecheck is how often a served provider is looked at, so that one
// whose manager stopped with an error is started again and a changed
// credentials Secret is used (Secrets are not watched: the agent caches
// none).
const providerRecheck = 30 * time.Second

// Reconcile starts, restarts or stops serving one Peer.
func (p *providers) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	select {
	case <-p.ready:
	case <-ctx.Done():
		return ctrl.Result{}, ctx.Err()
	}
	peer := &sharingv1alpha1.Peer{}
	if err := p.Get(ctx, req.NamespacedName, peer); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("failed to get peer %s: %w", req, err)
		}
		peer = nil
	}
	var secret *corev1.Secret
	version := ""
	if peer != nil && hostsVirtualNodesFor(peer) && peer.DeletionTimestamp.IsZero() {
		secret = &corev1.Secret{}
		if err := p.reader.Get(ctx, client.ObjectKey{Namespace: peer.Namespace, Name: peer.Spec.CredentialsSecretRef.Name}, secret); err != nil {
			return ctrl.Result{}, fmt.Errorf("failed to read credentials Secret %s/%s of peer %q: %w", peer.Namespace, peer.Spec.CredentialsSecretRef.Name, peer.Spec.ClusterID, err)
		}
		version = fmt.Sprintf("%s/%d/%s", peer.UID, peer.Generation, secret.ResourceVersion)
	}

	p.mu.Lock()
	cur := p.running[req.NamespacedName]
	p.mu.Unlock()
	if cur != nil {
		select {
		case <-cur.done:
			cur.version = "" // stopped by itself: start again
		default:
		}
		if cur.version == version && version != "" {
			return ctrl.Result{RequeueAfter: providerRecheck}, nil
		}
		cur.cancel()
		<-cur.done
		p.mu.Lock()
		delete(p.running, req.NamespacedName)
		p.mu.Unlock()
	}
	if version == "" {
		return p.retire(ctx, req, cur != nil)
	}
	s, err := p.serve(peer, secret, version)
	if err != nil {
		return ctrl.Result{}, err
	}
	p.mu.Lock()
	p.running[req.NamespacedName] = s
	p.mu.Unlock()
	log.FromContext(ctx).Info("Serving provider", "peer", klog.KObj(peer), "provider", peer.Spec.ClusterID)
	return ctrl.Result{RequeueAfter: providerRecheck}, nil
}

// serve starts package virtualnode for peer: a manager on the provider,
// and the consumer-side controllers, which share the consumer manager's
// cache and client but run under their own context, so that they stop
// when the peer goes.
func (p *providers) serve(peer *sharingv1alpha1.Peer, secret *corev1.Secret, version string) (*served, error) {
	cfg, ns, err := remote.KubeconfigOf(peer, secret)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = p.opts.KubeAPIQPS, p.opts.KubeAPIBurst
	pm, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: p.mgr.GetScheme(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache:  virtualnode.ProviderCacheOptions(p.opts.ClusterID),
		Logger: p.mgr.GetLogger().WithValues("provider", peer.Spec.ClusterID),
	})
	if err != nil {
		return nil, fmt.Errorf("failed to create the manager of provider %q: %w", peer.Spec.ClusterID, err)
	}
	o := p.vn
	o.ConsumerID, o.ProviderID, o.ClockSkew = p.opts.ClusterID, peer.Spec.ClusterID, p.opts.ClockSkew
	o.AuctionNamespace, o.ProviderNamespace = p.opts.Namespace, ns
	o.BrokerOffer = p.brokerOffer
	consumer := &collecting{Manager: p.mgr}
	if err := virtualnode.Setup(consumer, pm, o); err != nil {
		return nil, err
	}
	p.mu.Lock()
	ctx, cancel := context.WithCancel(p.base)
	p.mu.Unlock()
	s := &served{version: version, provider: peer.Spec.ClusterID, config: cfg, twins: pm.GetClient(), cancel: cancel, done: make(chan struct{})}
	logger := p.mgr.GetLogger().WithValues("provider", peer.Spec.ClusterID)
	runnables := append([]manager.Runnable{pm}, consumer.runnables...)
	var wg sync.WaitGroup
	for _, r := range runnables {
		wg.Go(func() {
			if err := r.Start(ctx); err != nil {
				logger.Error(err, "Provider's controllers stopped")
				cancel()
			}
		})
	}
	p.wg.Go(func() {
		wg.Wait()
		close(s.done)
	})
	return s, nil
}

// retire deletes the virtual nodes of a provider no longer served, once
// it stopped being served (or at start, for a Peer deleted while the agent
// was down).
func (p *providers) retire(ctx context.Context, req ctrl.Request, wasServed bool) (ctrl.Result, error) {
	var nodes corev1.NodeList
	if err := p.List(ctx, &nodes, client.MatchingLabels{sharingv1alpha1.LabelVirtualNode: "true"}); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list virtual nodes: %w", err)
	}
	var peers sharingv1alpha1.PeerList
	if err := p.List(ctx, &peers, client.InNamespace(p.opts.Namespace)); err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to list peers in %q: %w", p.opts.Namespace, err)
	}
	live := map[string]bool{}
	for i := range peers.Items {
		if hostsVirtualNodesFor(&peers.Items[i]) && peers.Items[i].DeletionTimestamp.IsZero() {
			live[string(peers.Items[i].Spec.ClusterID)] = true
		}
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if live[n.Labels[sharingv1alpha1.LabelProvider]] {
			continue
		}
		if err := p.Delete(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: virtualnode.LeaseNamespace, Name: n.Name}}); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to delete lease of virtual node %q: %w", n.Name, err)
		}
		if err := p.Delete(ctx, n); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("failed to delete virtual node %q: %w", n.Name, err)
		}
		log.FromContext(ctx).Info("Deleted virtual node of a provider no longer served", "node", klog.KObj(n), "peer", req.NamespacedName)
	}
	if wasServed {
		log.FromContext(ctx).Info("Stopped serving provider", "peer", req.NamespacedName)
	}
	return ctrl.Result{}, nil
}

// collecting is the consumer's manager as package virtualnode sees it for
// one provider: everything is the manager's except that the controllers
// it adds are kept to be run by the provider's own context, and may be
// made again under the same name when the provider is served anew.
type collecting struct {
	manager.Manager
	runnables []manager.Runnable
}

func (c *collecting) Add(r manager.Runnable) error {
	c.runnables = append(c.runnables, r)
	return nil
}

func (c *collecting) GetControllerOptions() config.Controller {
	o := c.Manager.GetControllerOptions()
	skip := true
	o.SkipNameValidation = &skip
	return o
}

// brokerOffer reads the winning offer of this cluster's auction quote
// that the broker it borrows through handed over into this cluster's
// namespace there; nil when there is no broker or no such offer.
func (p *providers) brokerOffer(ctx context.Context, quote string) (*sharingv1alpha1.Offer, error) {
	var peers sharingv1alpha1.PeerList
	if err := p.reader.List(ctx, &peers, client.InNamespace(p.opts.Namespace)); err != nil {
		return nil, fmt.Errorf("failed to list peers: %w", err)
	}
	b := brokerOf(peers.Items)
	if b == nil {
		return nil, nil
	}
	rem, err := p.remotes.Of(ctx, b)
	if err != nil {
		return nil, err
	}
	off := &sharingv1alpha1.Offer{}
	if err := rem.Get(ctx, client.ObjectKey{Namespace: rem.Namespace, Name: quote}, off); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("failed to read the offer broker %q handed over for quote %q: %w", b.Spec.ClusterID, quote, err)
	}
	return off, nil
}
