package agent

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/inventory"
)

// base is what every reconciler of the agent shares.
type base struct {
	client.Client
	reader  client.Reader
	opts    Options
	clock   clock.PassiveClock
	remotes *remotes
	book    *book
}

// peers lists this cluster's Peers.
func (b *base) peers(ctx context.Context) ([]sharingv1alpha1.Peer, error) {
	var list sharingv1alpha1.PeerList
	if err := b.List(ctx, &list, client.InNamespace(b.opts.Namespace)); err != nil {
		return nil, fmt.Errorf("failed to list peers in %q: %w", b.opts.Namespace, err)
	}
	return list.Items, nil
}

// peerOfNamespace returns the enabled Peer whose spec.namespace is ns: the
// peer that wrote every message in ns, since its service account is the
// only one allowed to. A message's own clusterID is never trusted for this.
func peerOfNamespace(peers []sharingv1alpha1.Peer, ns string) *sharingv1alpha1.Peer {
	for i := range peers {
		if peers[i].Spec.Namespace == ns && !peers[i].Spec.Disabled {
			return &peers[i]
		}
	}
	return nil
}

// providesTo reports whether this cluster lends capacity to peer.
func providesTo(p *sharingv1alpha1.Peer) bool { return p.Spec.Borrows() }

// borrowsFrom reports whether peer lends capacity to this cluster.
func borrowsFrom(p *sharingv1alpha1.Peer) bool { return p.Spec.Lends() }

// hostsVirtualNodesFor reports whether this cluster runs virtual nodes of
// peer (PeerSpec.HostsVirtualNodes).
func hostsVirtualNodesFor(p *sharingv1alpha1.Peer) bool { return p.Spec.HostsVirtualNodes() }

// remote is a client for a peer's API server and the namespace this
// cluster writes into there.
type remote struct {
	client.Client
	namespace string
}

// remotes builds clients for peers from their credentials Secrets and keeps
// them until the Secret changes.
type remotes struct {
	reader client.Reader
	scheme *runtime.Scheme
	mu     sync.Mutex
	byPeer map[types.UID]cachedRemote
}

type cachedRemote struct {
	version string
	remote  remote
}

func newRemotes(reader client.Reader, scheme *runtime.Scheme) *remotes {
	return &remotes{reader: reader, scheme: scheme, byPeer: map[types.UID]cachedRemote{}}
}

// of returns the client for peer, built from its credentials Secret
// (kubeconfigOf); the kubeconfig's namespace is where this cluster writes.
func (r *remotes) of(ctx context.Context, peer *sharingv1alpha1.Peer) (remote, error) {
	ref := peer.Spec.CredentialsSecretRef
	var secret corev1.Secret
	if err := r.reader.Get(ctx, client.ObjectKey{Namespace: peer.Namespace, Name: ref.Name}, &secret); err != nil {
		return remote{}, fmt.Errorf("failed to read credentials Secret %s/%s of peer %q: %w", peer.Namespace, ref.Name, peer.Spec.ClusterID, err)
	}
	version := string(peer.UID) + "/" + secret.ResourceVersion
	r.mu.Lock()
	c, ok := r.byPeer[peer.UID]
	r.mu.Unlock()
	if ok && c.version == version {
		return c.remote, nil
	}
	cfg, ns, err := kubeconfigOf(peer, &secret)
	if err != nil {
		return remote{}, err
	}
	cl, err := client.New(cfg, client.Options{Scheme: r.scheme})
	if err != nil {
		return remote{}, fmt.Errorf("failed to build a client for peer %q: %w", peer.Spec.ClusterID, err)
	}
	rem := remote{Client: cl, namespace: ns}
	r.mu.Lock()
	r.byPeer[peer.UID] = cachedRemote{version: version, remote: rem}
	r.mu.Unlock()
	return rem, nil
}

// kubeconfigOf reads the kubeconfig in a peer's credentials Secret (the
// key "kubeconfig" unless the reference names another) and the namespace
// of its current context, which must be set: it is the namespace the peer
// mapped to this cluster.
func kubeconfigOf(peer *sharingv1alpha1.Peer, secret *corev1.Secret) (*rest.Config, string, error) {
	key := peer.Spec.CredentialsSecretRef.Key
	if key == "" {
		key = "kubeconfig"
	}
	data, ok := secret.Data[key]
	if !ok {
		return nil, "", fmt.Errorf("credentials Secret %s/%s of peer %q has no key %q", secret.Namespace, secret.Name, peer.Spec.ClusterID, key)
	}
	cc, err := clientcmd.NewClientConfigFromBytes(data)
	if err != nil {
		return nil, "", fmt.Errorf("failed to read the kubeconfig of peer %q: %w", peer.Spec.ClusterID, err)
	}
	raw, err := cc.RawConfig()
	if err == nil {
		err = inventory.SelfContained(&raw)
	}
	if err != nil {
		return nil, "", fmt.Errorf("failed to read the kubeconfig of peer %q: %w", peer.Spec.ClusterID, err)
	}
	ctxt := raw.Contexts[raw.CurrentContext]
	if ctxt == nil || ctxt.Namespace == "" {
		return nil, "", fmt.Errorf("peer %q: set the namespace of the kubeconfig's current context to the one the peer mapped to this cluster: %w", peer.Spec.ClusterID, ErrNoNamespace)
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("failed to read the kubeconfig of peer %q: %w", peer.Spec.ClusterID, err)
	}
	return cfg, ctxt.Namespace, nil
}
