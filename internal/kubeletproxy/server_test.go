package kubeletproxy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/meridian-dev/meridian/internal/kubeletproxy"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// The package's tests share their API servers (testenv.Main).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// TestGuard: the kubelet endpoint answers only callers the consumer's API
// server vouches for (its client CA, or a token it confirms) and allows
// nodes/proxy of the pod's virtual node, and then asks the provider's API
// server for the pod's twin, whose answer the caller gets.
func TestGuard(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	consumer, provider := env.Management, env.Members[0]
	ctx := t.Context()

	// The twin in the provider: a pod bound to a node without a kubelet
	// address, so the provider's pods/log refuses it, with a message the
	// caller must get as it is.
	twinNS := "apps-home"
	provider.CreateNamespaces(t, twinNS)
	provider.AddNode(t, "provider-node", "8", "32Gi")
	twin := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: twinNS, Name: "web"}, Spec: corev1.PodSpec{
		NodeName:   "provider-node",
		Containers: []corev1.Container{{Name: "web", Image: "nginx"}},
	}}
	if err := provider.Client.Create(ctx, twin); err != nil {
		t.Fatal(err)
	}
	pcs := kubernetes.NewForConfigOrDie(provider.Config)
	stream, direct := pcs.CoreV1().Pods(twinNS).GetLogs("web", &corev1.PodLogOptions{Container: "web"}).Stream(ctx)
	if direct == nil {
		_ = stream.Close()
		t.Fatal("the provider served logs of a pod on a node it cannot reach")
	}

	locator := kubeletproxy.LocatorFunc(func(_ context.Context, namespace, pod string) (kubeletproxy.Twin, error) {
		switch {
		case namespace == "apps" && pod == "web":
			return kubeletproxy.Twin{Node: "vn-big-0", Provider: provider.Config, Namespace: twinNS, Name: "web"}, nil
		case namespace == "apps" && pod == "cut-off":
			return kubeletproxy.Twin{}, fmt.Errorf("%w: provider %q", kubeletproxy.ErrProviderNotServed, "big")
		}
		return kubeletproxy.Twin{}, fmt.Errorf("%w: pod %s/%s not found", kubeletproxy.ErrNotOffloaded, namespace, pod)
	})
	srv, err := kubeletproxy.New(ctx, consumer.Config, locator, kubeletproxy.Options{Address: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx, l) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("Serve() = %v", err)
		}
	})
	endpoint := "https://" + l.Addr().String()

	// Callers: the consumer's administrator (the API server's own rights),
	// a user with certificate and no rights, one allowed nodes/proxy of
	// that node only, and a service account's token with the same right.
	ccs := kubernetes.NewForConfigOrDie(consumer.Config)
	user := func(name string) *rest.Config {
		cfg, err := consumer.AddUser(envtest.User{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	allow := func(subject rbacv1.Subject, node string) {
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "proxy-" + subject.Name}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"nodes/proxy"}, ResourceNames: []string{node}, Verbs: []string{"get", "create"},
		}}}
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, Subjects: []rbacv1.Subject{subject},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}}
		if _, err := ccs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := ccs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	allow(rbacv1.Subject{Kind: rbacv1.UserKind, Name: "proxy-user"}, "vn-big-0")
	allow(rbacv1.Subject{Kind: rbacv1.UserKind, Name: "other-node-user"}, "vn-small-0")
	consumer.CreateNamespaces(t, "tools")
	if _, err := ccs.CoreV1().ServiceAccounts("tools").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "debugger"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	allow(rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: "tools", Name: "debugger"}, "vn-big-0")
	tok, err := ccs.CoreV1().ServiceAccounts("tools").CreateToken(ctx, "debugger", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	get := func(caller *rest.Config, path string) (int, string) {
		t.Helper()
		cfg := &rest.Config{Host: endpoint, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
		if caller != nil {
			cfg.CertData, cfg.KeyData, cfg.BearerToken = caller.CertData, caller.KeyData, caller.BearerToken
		}
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}

	var status interface{ Status() metav1.Status }
	if !errors.As(direct, &status) {
		t.Fatalf("the provider's refusal %v is not a status", direct)
	}
	providerSays := status.Status().Message
	t.Logf("the provider refuses the twin's log with %d: %s", status.Status().Code, providerSays)
	const logs = "/containerLogs/apps/web/web"
	for _, tc := range []struct {
		name     string
		caller   *rest.Config
		path     string
		wantCode int
		wantBody string
	}{
		{"anonymous", nil, logs, http.StatusUnauthorized, "Unauthorized"},
		{"certificate, no rights", user("nobody"), logs, http.StatusForbidden, `user "nobody" cannot get nodes/proxy of node "vn-big-0"`},
		{"rights on another node", user("other-node-user"), logs, http.StatusForbidden, `cannot get nodes/proxy of node "vn-big-0"`},
		{"certificate with nodes/proxy", user("proxy-user"), logs, http.StatusInternalServerError, providerSays},
		{"service account token with nodes/proxy", &rest.Config{BearerToken: tok.Status.Token}, logs, http.StatusInternalServerError, providerSays},
		{"administrator", consumer.Config, logs, http.StatusInternalServerError, providerSays},
		{"pod not offloaded", consumer.Config, "/containerLogs/apps/db/db", http.StatusNotFound, "pod is not offloaded: pod apps/db not found"},
		{"provider not served", consumer.Config, "/containerLogs/apps/cut-off/web", http.StatusServiceUnavailable, `provider not served: provider "big"`},
		{"node-wide route", consumer.Config, "/stats/summary", http.StatusNotFound, "only containerLogs, exec, attach and portForward"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(tc.caller, tc.path)
			if diff := cmp.Diff(tc.wantCode, code); diff != "" {
				t.Errorf("status of GET %s (-want +got):\n%s\nbody: %s", tc.path, diff, body)
			}
			if !strings.Contains(body, tc.wantBody) {
				t.Errorf("GET %s answered %q, want it to hold %q", tc.path, body, tc.wantBody)
			}
		})
	}
}
