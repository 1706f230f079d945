package controller

import (
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/meridian-dev/meridian/internal/controller/cluster"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterdeployment"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
)

// Options tune the management-plane controllers.
type Options struct {
	// Namespace holds kubeconfig Secrets that name no namespace.
	Namespace string
	// HeartbeatInterval and HeartbeatTimeout bound how soon a member that
	// stops answering turns NotReady (at most their sum).
	HeartbeatInterval time.Duration
	HeartbeatTimeout  time.Duration
	// PendingGrace is how long replicas may stay Unschedulable in a member
	// before the overflow is placed elsewhere.
	PendingGrace time.Duration
	// OrphanSweepInterval is the time between two sweeps for member objects
	// whose owner is gone.
	OrphanSweepInterval time.Duration
}

// Setup adds the inventory and every management-plane controller to mgr.
func Setup(mgr ctrl.Manager, opts Options) (*inventory.Inventory, error) {
	fw, err := plugins.NewFramework()
	if err != nil {
		return nil, fmt.Errorf("failed to build the placement framework: %w", err)
	}
	inv := inventory.New(inventory.Options{})
	if err := mgr.Add(inv); err != nil {
		return nil, fmt.Errorf("failed to add the inventory: %w", err)
	}
	if err := (&cluster.Reconciler{
		Client:            mgr.GetClient(),
		Inventory:         inv,
		Recorder:          mgr.GetEventRecorder("meridian-cluster"),
		Namespace:         opts.Namespace,
		HeartbeatInterval: opts.HeartbeatInterval,
		HeartbeatTimeout:  opts.HeartbeatTimeout,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the Cluster controller: %w", err)
	}
	if err := (&multiclusterdeployment.Reconciler{
		Client:       mgr.GetClient(),
		Inventory:    inv,
		Framework:    fw,
		Assumptions:  placement.NewAssumptions(),
		Recorder:     mgr.GetEventRecorder("meridian-placement"),
		PendingGrace: opts.PendingGrace,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the MultiClusterDeployment controller: %w", err)
	}
	if err := mgr.Add(&multiclusterdeployment.OrphanSweeper{
		Reader: mgr.GetAPIReader(), Inventory: inv, Interval: opts.OrphanSweepInterval,
	}); err != nil {
		return nil, fmt.Errorf("failed to add the orphan sweeper: %w", err)
	}
	return inv, nil
}
