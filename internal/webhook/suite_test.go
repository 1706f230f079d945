package webhook

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/meridian-dev/meridian/internal/scheme"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// clock is a settable clock for the handler.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// repoRoot is the repository's root: go test runs a package's tests in
// its folder, internal/webhook. (Not from runtime.Caller: -trimpath, as
// hack/test.sh builds, leaves no folder in the file's name.)
func repoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

// apiServer is a real API server with Meridian's CRDs and the generated
// MutatingWebhookConfiguration (config/webhook), which calls h over HTTPS
// on loopback with envtest's serving certificate.
type apiServer struct {
	Config *rest.Config
	Client client.Client
}

func startAPIServer(t *testing.T, h *CloudVMHandler) *apiServer {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping test that starts a real API server in -short mode")
	}
	assets, err := testenv.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	root := repoRoot(t)
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme.New(),
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join(root, "config", "webhook")},
		},
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("failed to start the API server: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("failed to stop the API server: %v", err)
		}
	})
	wo := env.WebhookInstallOptions
	serveHTTPS(t, h, wo.LocalServingHost, wo.LocalServingPort, wo.LocalServingCertDir)
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return &apiServer{Config: cfg, Client: c}
}

// serveHTTPS serves h as controller-runtime's webhook server does in
// meridian controller (TLS from tls.crt and tls.key in certDir, reloaded by
// its certificate watcher) until t ends, and waits until it answers.
func serveHTTPS(t testing.TB, h *CloudVMHandler, host string, port int, certDir string) {
	t.Helper()
	srv := webhook.NewServer(webhook.Options{Host: host, Port: port, CertDir: certDir})
	h.Register(srv)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only waits for the listener
		if err == nil {
			_ = conn.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook server on %s did not start: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func url(host string, port int) string {
	return fmt.Sprintf("https://%s%s", net.JoinHostPort(host, strconv.Itoa(port)), CloudVMPath)
}
