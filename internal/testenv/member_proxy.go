package testenv

import (
	"net/url"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/testbed"
)

// RouteMemberThroughProxy points the kubeconfig Secret that the controller
// reads for a testbed member at a proxy in front of the member's API
// server, and returns the proxy: Break cuts the member off the controller,
// while clients made from the testbed still reach it directly. Call it
// before the controller connects to the member.
func RouteMemberThroughProxy(t testing.TB, mgmt client.Client, tb *testbed.Testbed, member string) *Proxy {
	t.Helper()
	m := tb.Cluster(member)
	u, err := url.Parse(m.Config.Host)
	if err != nil {
		t.Fatalf("failed to parse API server address %q: %v", m.Config.Host, err)
	}
	p := NewProxyTo(t, u.Host)
	data, err := p.Kubeconfig(m.Kubeconfig)
	if err != nil {
		t.Fatalf("failed to route %s through the proxy: %v", member, err)
	}
	secret := &corev1.Secret{}
	key := client.ObjectKey{Namespace: testbed.Namespace, Name: testbed.KubeconfigSecretName(member)}
	if err := mgmt.Get(t.Context(), key, secret); err != nil {
		t.Fatalf("failed to read the kubeconfig Secret of %s: %v", member, err)
	}
	secret.Data[testbed.KubeconfigKey] = data
	if err := mgmt.Update(t.Context(), secret); err != nil {
		t.Fatalf("failed to route %s through the proxy: %v", member, err)
	}
	return p
}
