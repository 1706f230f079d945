package peering

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// Unpeer removes what Peer made for a and b in both clusters: the Peers
// first (the agents stop trading with each other and remove the virtual
// nodes of the peer), then the credentials, bindings, roles,
// ServiceAccounts (ending their tokens) and the from-<peer> namespaces with
// the messages in them. Running it again does nothing.
func Unpeer(ctx context.Context, a, b Side, o Options, out io.Writer) error {
	o.defaults()
	ca, cb, err := connectBoth(a, b)
	if err != nil {
		return err
	}
	for _, pair := range [][2]*cluster{{ca, cb}, {cb, ca}} {
		self, other := pair[0], pair[1]
		if err := remove(ctx, self, other.Name, out); err != nil {
			return fmt.Errorf("cluster %q: %w", self.Name, err)
		}
	}
	return nil
}

// remove deletes what a peering with peer made in c, Peers first.
func remove(ctx context.Context, c *cluster, peer string, out io.Writer) error {
	mine := client.MatchingLabels(labels(peer))
	lists := []client.ObjectList{
		&sharingv1alpha1.PeerList{}, &corev1.SecretList{}, &rbacv1.ClusterRoleBindingList{}, &rbacv1.ClusterRoleList{},
		&rbacv1.RoleBindingList{}, &rbacv1.RoleList{}, &corev1.ServiceAccountList{}, &corev1.NamespaceList{},
	}
	for _, list := range lists {
		err := c.c.List(ctx, list, mine)
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to list %T made by the peering with %s: %w", list, peer, err)
		}
		err = meta.EachListItem(list, func(o runtime.Object) error {
			obj := o.(client.Object)
			if !obj.GetDeletionTimestamp().IsZero() {
				return nil
			}
			kind := fmt.Sprintf("%T", obj)
			if gvk, err := c.c.GroupVersionKindFor(obj); err == nil {
				kind = gvk.Kind
			}
			if err := c.c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("failed to delete %s %s: %w", kind, klog.KObj(obj), err)
			}
			_, err := fmt.Fprintf(out, "%s: %s %s deleted\n", c.Name, kind, klog.KObj(obj))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
