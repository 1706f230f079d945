package broker

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing/remote"
)

// member is a cluster onboarded at the broker: the namespace it writes
// into, the cluster ID and identity the administrator gave it there, and
// its registration once admit accepted it.
type member struct {
	Namespace string
	ClusterID sharingv1alpha1.ClusterID
	Identity  string
	// Registration is nil until the member registered validly.
	Registration *sharingv1alpha1.Peer
}

// lends reports whether the member lends capacity through the broker.
func (m *member) lends() bool {
	r := m.Registration
	return r != nil && r.Spec.Lends()
}

// borrows reports whether the member borrows capacity through the broker.
func (m *member) borrows() bool {
	r := m.Registration
	return r != nil && r.Spec.Borrows()
}

// base is what every reconciler of the broker shares.
type base struct {
	client.Client
	// reader reads past the cache, where a value just written matters.
	reader  client.Reader
	opts    Options
	clock   clock.PassiveClock
	remotes *remote.Remotes
}

// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// borrower reads the members and finds the one whose namespace at the
// broker is ns: nil when ns is no member's, and with the refusal to report
// when that member is not registered to borrow.
func (b *base) borrower(ctx context.Context, ns string) (members map[string]*member, m *member, refusal string, err error) {
	if members, err = b.members(ctx); err != nil {
		return nil, nil, "", err
	}
	if m = members[ns]; m != nil && !m.borrows() {
		refusal = fmt.Sprintf("namespace %q belongs to no member registered to borrow (role Consumer or Both)", ns)
	}
	return members, m, refusal, nil
}

// members returns every onboarded member by namespace, with its
// registration when admit accepts it.
func (b *base) members(ctx context.Context) (map[string]*member, error) {
	var nss corev1.NamespaceList
	if err := b.List(ctx, &nss, client.HasLabels{sharingv1alpha1.LabelBrokerMember}); err != nil {
		return nil, fmt.Errorf("failed to list member namespaces: %w", err)
	}
	out := map[string]*member{}
	for _, ns := range nss.Items {
		out[ns.Name] = memberOf(&ns)
	}
	var peers sharingv1alpha1.PeerList
	if err := b.List(ctx, &peers); err != nil {
		return nil, fmt.Errorf("failed to list registrations: %w", err)
	}
	for i := range peers.Items {
		p := &peers.Items[i]
		if m, ok := out[p.Namespace]; ok {
			if _, _, ok := admit(p, m); ok {
				m.Registration = p
			}
		}
	}
	return out, nil
}

// memberOf reads a member namespace's labels, which only the broker's
// administrator writes.
func memberOf(ns *corev1.Namespace) *member {
	return &member{
		Namespace: ns.Name,
		ClusterID: sharingv1alpha1.ClusterID(ns.Labels[sharingv1alpha1.LabelBrokerMember]),
		Identity:  ns.Annotations[sharingv1alpha1.AnnotationBrokerIdentity],
	}
}
