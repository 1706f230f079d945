package agent

import (
	"context"
	"fmt"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing/remote"
)

// base is what every reconciler of the agent shares.
type base struct {
	client.Client
	reader  client.Reader
	opts    Options
	clock   clock.PassiveClock
	remotes *remote.Remotes
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
