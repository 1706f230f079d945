package testenv

import (
	"context"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Manager is a running controller manager of a test.
type Manager struct {
	ctrl.Manager
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Stop stops the manager and waits for it, as a crash or a rollout of the
// controller would; it is safe to call more than once.
func (m *Manager) Stop() {
	m.cancel()
	m.wg.Wait()
}

// StartManager starts a controller manager against the management cluster
// with the controllers setup registers, and stops it when t ends. Metrics
// and health endpoints are off, and controller names may repeat across
// tests of one process.
func (e *Env) StartManager(t testing.TB, setup func(ctrl.Manager) error) *Manager {
	t.Helper()
	return startManager(t, e.Management.Config, setup)
}

// StartManagerAs is StartManager with only the rights `make manifests`
// generated for component (see Cluster.ComponentConfig), so that its tests
// fail when the component uses an API its RBAC markers do not name.
func (e *Env) StartManagerAs(t testing.TB, component string, setup func(ctrl.Manager) error) *Manager {
	t.Helper()
	return startManager(t, e.Management.ComponentConfig(t, component), setup)
}

func startManager(t testing.TB, cfg *rest.Config, setup func(ctrl.Manager) error) *Manager {
	t.Helper()
	skip := true
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: &skip},
	})
	if err != nil {
		t.Fatalf("failed to create manager: %v", err)
	}
	if err := setup(mgr); err != nil {
		t.Fatalf("failed to set up controllers: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{Manager: mgr, cancel: cancel}
	m.wg.Go(func() {
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager stopped with error: %v", err)
		}
	})
	t.Cleanup(m.Stop)
	return m
}
