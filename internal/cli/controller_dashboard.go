package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/meridian-dev/meridian/internal/dashboard"
)

// setupDashboard serves the dashboard from every replica when
// --dashboard-bind-address is set, reading with each viewer's bearer
// token, never the controller's rights. Tokens must not cross a network in
// clear: without --dashboard-cert-dir the address must be a loopback one
// (kubectl port-forward reaches it).
func setupDashboard(mgr ctrl.Manager, cfg *rest.Config, f *controllerFlags) error {
	if f.dashboardAddr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(f.dashboardAddr)
	if err != nil {
		return fmt.Errorf("invalid --dashboard-bind-address %q: %w", f.dashboardAddr, err)
	}
	var tlsConfig *tls.Config
	if f.dashboardCertDir != "" {
		crt, key := filepath.Join(f.dashboardCertDir, "tls.crt"), filepath.Join(f.dashboardCertDir, "tls.key")
		for _, p := range []string{crt, key} {
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("invalid --dashboard-cert-dir %q: it must hold tls.crt and tls.key: %w", f.dashboardCertDir, err)
			}
		}
		watcher, err := certwatcher.New(crt, key)
		if err != nil {
			return fmt.Errorf("invalid --dashboard-cert-dir %q: %w", f.dashboardCertDir, err)
		}
		if err := mgr.Add(everyReplica{watcher}); err != nil {
			return err
		}
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: watcher.GetCertificate}
	} else if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("invalid --dashboard-bind-address %q: viewers' tokens would cross the network in clear; give --dashboard-cert-dir or a loopback address (reach it with kubectl port-forward)", f.dashboardAddr)
	}
	handler, err := dashboard.New(dashboard.Options{Config: cfg, ViewerToken: true})
	if err != nil {
		return err
	}
	return mgr.Add(everyReplica{manager.RunnableFunc(func(ctx context.Context) error {
		ln, err := net.Listen("tcp", f.dashboardAddr)
		if err != nil {
			return fmt.Errorf("dashboard: %w", err)
		}
		if tlsConfig != nil {
			ln = tls.NewListener(ln, tlsConfig)
		}
		return serveUntilDone(ctx, &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}, ln)
	})})
}
