package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/inventory"
)

// ErrNoNamespace: a peer's kubeconfig names no namespace to write into.
var ErrNoNamespace = errors.New("the peer's kubeconfig names no namespace")

// Remote is a client for a peer's API server and the namespace this
// cluster writes into there.
type Remote struct {
	client.Client
	Namespace string
}

// Remotes builds clients for peers from their credentials Secrets and
// keeps each until its Peer or Secret changes.
type Remotes struct {
	reader client.Reader
	scheme *runtime.Scheme
	mu     sync.Mutex
	byPeer map[types.UID]cached
}

type cached struct {
	version string
	remote  Remote
}

// New returns Remotes that read credentials Secrets with reader and build
// clients with scheme.
func New(reader client.Reader, scheme *runtime.Scheme) *Remotes {
	return &Remotes{reader: reader, scheme: scheme, byPeer: map[types.UID]cached{}}
}

// Of returns the client for peer, built from its credentials Secret
// (KubeconfigOf), in peer's namespace.
func (r *Remotes) Of(ctx context.Context, peer *sharingv1alpha1.Peer) (Remote, error) {
	ref := peer.Spec.CredentialsSecretRef
	var secret corev1.Secret
	if err := r.reader.Get(ctx, client.ObjectKey{Namespace: peer.Namespace, Name: ref.Name}, &secret); err != nil {
		return Remote{}, fmt.Errorf("failed to read credentials Secret %s/%s of peer %q: %w", peer.Namespace, ref.Name, peer.Spec.ClusterID, err)
	}
	version := string(peer.UID) + "/" + secret.ResourceVersion
	r.mu.Lock()
	c, ok := r.byPeer[peer.UID]
	r.mu.Unlock()
	if ok && c.version == version {
		return c.remote, nil
	}
	cfg, ns, err := KubeconfigOf(peer, &secret)
	if err != nil {
		return Remote{}, err
	}
	cl, err := client.New(cfg, client.Options{Scheme: r.scheme})
	if err != nil {
		return Remote{}, fmt.Errorf("failed to build a client for peer %q: %w", peer.Spec.ClusterID, err)
	}
	rem := Remote{Client: cl, Namespace: ns}
	r.mu.Lock()
	r.byPeer[peer.UID] = cached{version: version, remote: rem}
	r.mu.Unlock()
	return rem, nil
}

// KubeconfigOf reads the kubeconfig in a peer's credentials Secret (the
// key "kubeconfig" unless the reference names another) and the namespace
// of its current context, which must be set: it is the namespace the peer
// mapped to this cluster. The kubeconfig must be self contained
// (inventory.SelfContained): it came from another cluster's administrator
// and may read no file and run no program here.
func KubeconfigOf(peer *sharingv1alpha1.Peer, secret *corev1.Secret) (*rest.Config, string, error) {
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
