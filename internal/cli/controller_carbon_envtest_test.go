package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/webhook"
)

// TestControllerDecidesWithCarbonOutOfTheBox runs `meridian controller`
// with no carbon flag against a real API server that calls its webhook:
// the start-up line says the capacity is unlimited, readiness waits for the
// carbon ledger, and a CloudVM is admitted with a decision from the offline
// data.
func TestControllerDecidesWithCarbonOutOfTheBox(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.Management.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	certDir := filepath.Join(dir, "certs")
	caPEM := writeServingCert(t, certDir)
	probe, port := freePort(t), freePort(t)

	stderr := &testenv.LockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		cmd := NewRootCommand()
		cmd.SetOut(stderr)
		cmd.SetErr(stderr)
		cmd.SetArgs([]string{"controller", "--kubeconfig", kubeconfig, "--leader-elect=false", "--metrics-bind-address", "0",
			"--health-probe-bind-address", "127.0.0.1:" + strconv.Itoa(probe),
			"--webhook-host", "127.0.0.1", "--webhook-port", strconv.Itoa(port), "--webhook-cert-dir", certDir})
		done <- cmd.ExecuteContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("meridian controller: %v", err)
		}
	})
	testenv.Eventually(t, 60*time.Second, "meridian controller ready", func() string {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", probe))
		if err != nil {
			return err.Error()
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return resp.Status
		}
		return ""
	})
	for _, want := range []string{"carbon scheduler on", "from offline", "capacity unlimited (no --carbon-capacity)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the start-up output does not say %q:\n%s", want, stderr.String())
		}
	}

	// Register the webhook as config/webhook does, calling this controller.
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "webhook", "manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := yaml.UnmarshalStrict(data, mwc); err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", port, webhook.CloudVMPath)
	mwc.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM}
	c := env.Management.Client
	if err := c.Create(t.Context(), mwc); err != nil {
		t.Fatal(err)
	}

	vm := &computev1alpha1.CloudVM{ObjectMeta: metav1.ObjectMeta{Name: "out-of-the-box", Namespace: "default"}}
	vm.Spec.CPU, vm.Spec.Memory = resource.MustParse("2"), resource.MustParse("4Gi")
	vm.Spec.Duration = metav1.Duration{Duration: 2 * time.Hour}
	vm.Spec.Deadline = &metav1.Time{Time: time.Now().Add(12 * time.Hour)}
	vm.Spec.Image = "ubuntu-24.04"
	vm.Spec.SSHPublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITestTestTestTestTestTestTestTestTestTest test@example.org"
	// The API server may take a moment to call a webhook just registered:
	// until it does, a CloudVM is admitted without spec.schedule, and is
	// deleted and created again.
	got := &computev1alpha1.CloudVM{}
	testenv.Eventually(t, 30*time.Second, "CloudVM admitted by the webhook", func() string {
		created := vm.DeepCopy()
		if err := c.Create(t.Context(), created); err != nil {
			return err.Error()
		}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(vm), got); err != nil {
			return err.Error()
		}
		if got.Spec.Schedule == nil {
			if err := c.Delete(t.Context(), got); err != nil {
				return err.Error()
			}
			return "admitted before the API server called the webhook"
		}
		return ""
	})
	webhookTLSOnly(t, port, caPEM)

	d := got.Spec.Schedule.Decision
	t.Logf("decision: %s/%s (%s) from %s, %v g from %s; reason %q", d.Provider, d.Region, d.Zone, d.Start.UTC().Format(time.RFC3339), d.ExpectedEmissionsGrams, d.IntensitySource, d.Reason)
	if d.IntensitySource != offline.Name || d.ExpectedEmissionsGrams == nil || d.Zone == "" {
		t.Errorf("decision: intensitySource %q, expected emissions %v, zone %q; want %q, a figure and a zone (reason %q, fallback %q)",
			d.IntensitySource, d.ExpectedEmissionsGrams, d.Zone, offline.Name, d.Reason, d.Fallback)
	}
}

// webhookTLSOnly checks that the webhook on port answers only over TLS 1.2
// or later: a plain HTTP request is refused unanswered and so is a TLS 1.1
// handshake, while TLS 1.2 with the CA completes.
func webhookTLSOnly(t *testing.T, port int, caPEM []byte) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	resp, err := http.Post("http://"+addr+webhook.CloudVMPath, "application/json", strings.NewReader("{}"))
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTPS server") {
			t.Errorf("plain HTTP to the webhook: %s %q, want it refused (400, an HTTP request to an HTTPS server)", resp.Status, body)
		}
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	if conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}); err == nil {
		conn.Close()
		t.Error("the webhook completed a TLS 1.1 handshake, want at least TLS 1.2")
	}
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatalf("TLS 1.2 to the webhook with its CA: %v", err)
	}
	conn.Close()
}

// writeServingCert writes a self-signed certificate for 127.0.0.1 as
// tls.crt and tls.key into dir and returns it in PEM.
func writeServingCert(t *testing.T, dir string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "meridian-webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	crt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), crt, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return crt
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}
