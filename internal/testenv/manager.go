package testenv

import (
	"context"
	"sync"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// StartManager starts a controller manager against the management cluster
// with the controllers setup registers, and stops it when t ends. Metrics
// and health endpoints are off, and controller names may repeat across
// tests of one process.
func (e *Env) StartManager(t testing.TB, setup func(ctrl.Manager) error) ctrl.Manager {
	t.Helper()
	skip := true
	mgr, err := ctrl.NewManager(e.Management.Config, ctrl.Options{
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
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager stopped with error: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return mgr
}
