package bootstrap_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/bootstrap"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// caBundles reads the CA bundles of the mutating webhooks Apply wrote.
func caBundles(t *testing.T, c client.Client) []string {
	t.Helper()
	var list admissionregistrationv1.MutatingWebhookConfigurationList
	if err := c.List(t.Context(), &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range list.Items {
		for _, w := range h.Webhooks {
			out = append(out, string(w.ClientConfig.CABundle))
		}
	}
	return out
}

// TestBootstrapFollowsARenewedWebhookCA: Apply installs the CRDs, the
// namespace and the webhook configurations trusting the CA; when the CA
// file changes, FollowWebhookCA points them at the new one.
func TestBootstrapFollowsARenewedWebhookCA(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, []byte("first CA"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := bootstrap.Options{FieldManager: "test", Namespace: "meridian-system", WebhookURL: "https://meridian-webhook.meridian-system.svc:443",
		WebhookCA: []byte("first CA"), FailurePolicy: "Ignore"}
	if err := bootstrap.Apply(t.Context(), c, o); err != nil {
		t.Fatal(err)
	}
	if got := caBundles(t, c); len(got) == 0 || got[0] != "first CA" {
		t.Fatalf("CA bundles after Apply: %q; want the first CA", got)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		bootstrap.FollowWebhookCA(ctx, c, o, caFile, 50*time.Millisecond)
	}()
	t.Cleanup(func() { cancel(); <-done })
	if err := os.WriteFile(caFile, []byte("renewed CA"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the webhooks trusting the renewed CA", func() string {
		for _, b := range caBundles(t, c) {
			if b != "renewed CA" {
				return "a webhook trusts " + b
			}
		}
		return ""
	})
}
