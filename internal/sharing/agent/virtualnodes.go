package agent

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

// SetupVirtualNodes registers, for every provider Peer that exists when it
// is called, the virtual nodes and pod reflection of package virtualnode:
// a manager on the provider's API server (through the Peer's credentials,
// its cache limited to this consumer's twins) is added to mgr, so that it
// starts and stops with it. A provider Peer created later is served after
// the agent restarts.
func SetupVirtualNodes(ctx context.Context, mgr ctrl.Manager, opts Options, vn virtualnode.Options) error {
	opts.Default()
	reader := mgr.GetAPIReader()
	var peers sharingv1alpha1.PeerList
	if err := reader.List(ctx, &peers, client.InNamespace(opts.Namespace)); err != nil {
		return fmt.Errorf("failed to list peers in %q: %w", opts.Namespace, err)
	}
	for i := range peers.Items {
		p := &peers.Items[i]
		if !borrowsFrom(p) {
			continue
		}
		var secret corev1.Secret
		if err := reader.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: p.Spec.CredentialsSecretRef.Name}, &secret); err != nil {
			return fmt.Errorf("failed to read credentials Secret %s/%s of peer %q: %w", p.Namespace, p.Spec.CredentialsSecretRef.Name, p.Spec.ClusterID, err)
		}
		cfg, _, err := kubeconfigOf(p, &secret)
		if err != nil {
			return err
		}
		pm, err := ctrl.NewManager(cfg, ctrl.Options{
			Scheme: mgr.GetScheme(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
			Cache: virtualnode.ProviderCacheOptions(opts.ClusterID),
		})
		if err != nil {
			return fmt.Errorf("failed to create the manager of provider %q: %w", p.Spec.ClusterID, err)
		}
		o := vn
		o.ConsumerID, o.ProviderID, o.ClockSkew = opts.ClusterID, p.Spec.ClusterID, opts.ClockSkew
		if err := virtualnode.Setup(mgr, pm, o); err != nil {
			return err
		}
		if err := mgr.Add(pm); err != nil {
			return fmt.Errorf("failed to add the manager of provider %q: %w", p.Spec.ClusterID, err)
		}
	}
	return nil
}
