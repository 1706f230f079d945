package dashboard_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/dashboard"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// line is one message of a watch stream, as the page reads it.
type line struct {
	Type     string `json:"type"`
	Resource string `json:"resource"`
	Items    []struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	} `json:"items"`
	Object *struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	} `json:"object"`
	Error string `json:"error"`
	Code  int    `json:"code"`
}

// watchStream opens GET /api/watch and returns a function that reads its
// next message.
func watchStream(t *testing.T, url, token string) (*http.Response, func() line) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	return resp, func() line {
		t.Helper()
		for sc.Scan() {
			var l line
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("stream line %q: %v", sc.Text(), err)
			}
			if l.Type != "PING" {
				return l
			}
		}
		t.Fatalf("stream ended: %v", sc.Err())
		return line{}
	}
}

func TestWatchStreamsListsAndChanges(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	srv, err := dashboard.New(dashboard.Options{Config: env.Management.Config})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c := env.Management.Client
	ctx := t.Context()

	before := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "before"}}
	before.Spec.KubeconfigSecretRef = multiclusterv1alpha1.SecretReference{Name: "before-kubeconfig"}
	if err := c.Create(ctx, before); err != nil {
		t.Fatal(err)
	}

	resp, next := watchStream(t, hs.URL+"/api/watch?resource=clusters&resource=cloudvms", "") //nolint:bodyclose // watchStream closes it when the test ends
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/watch = %d", resp.StatusCode)
	}
	synced := map[string]int{}
	for len(synced) < 2 {
		l := next()
		if l.Type != "SYNC" {
			t.Fatalf("first messages = %s %s, want a SYNC per resource", l.Type, l.Resource)
		}
		synced[l.Resource] = len(l.Items)
	}
	if synced["clusters"] != 1 || synced["cloudvms"] != 0 {
		t.Errorf("SYNC items = %v, want clusters 1 (before), cloudvms 0", synced)
	}

	after := before.DeepCopy()
	after.ObjectMeta = metav1.ObjectMeta{Name: "after"}
	if err := c.Create(ctx, after); err != nil {
		t.Fatal(err)
	}
	if l := next(); l.Type != "ADDED" || l.Resource != "clusters" || l.Object.Metadata.Name != "after" {
		t.Errorf("after a create: %s %s %v, want ADDED clusters after", l.Type, l.Resource, l.Object)
	}
	if err := c.Delete(ctx, before); err != nil {
		t.Fatal(err)
	}
	for {
		l := next()
		if l.Type == "DELETED" {
			if l.Object.Metadata.Name != "before" {
				t.Errorf("DELETED %s, want before", l.Object.Metadata.Name)
			}
			break
		}
		if l.Type != "MODIFIED" {
			t.Fatalf("after a delete: %s, want MODIFIED (finalizers) then DELETED", l.Type)
		}
	}
}

func TestDashboardOnlyReads(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	srv, err := dashboard.New(dashboard.Options{Config: env.Management.Config})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, path string
		code         int
		names        string
	}{
		{http.MethodPost, "/api/watch?resource=clusters", http.StatusMethodNotAllowed, "read-only"},
		{http.MethodDelete, "/api/resources", http.StatusMethodNotAllowed, "read-only"},
		{http.MethodGet, "/api/watch?resource=secrets", http.StatusBadRequest, "is not one the dashboard shows; valid: clusters"},
		{http.MethodGet, "/api/watch", http.StatusBadRequest, "resource: name at least one"},
	}
	for _, tc := range cases {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), tc.method, tc.path, strings.NewReader("{}")))
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.names) {
			t.Errorf("%s %s = %d %s, want %d naming %q", tc.method, tc.path, rec.Code, rec.Body, tc.code, tc.names)
		}
	}
}

// With ViewerToken the dashboard reads with each viewer's token alone: no
// token is refused, and a viewer sees only what RBAC lets it read.
func TestDashboardReadsWithTheViewersToken(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client
	ctx := t.Context()
	for _, obj := range []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "viewer"}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "clusters-viewer"}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"multicluster.meridian.dev"}, Resources: []string{"clusters"}, Verbs: []string{"get", "list", "watch"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "clusters-viewer"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "clusters-viewer"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "default", Name: "viewer"}}},
	} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := kubernetes.NewForConfig(env.Management.Config)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "viewer", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The API server authorizes from its informers of the RBAC objects,
	// which may not hold the binding yet: wait until the viewer may list
	// clusters itself before asking the dashboard.
	viewerConfig := rest.AnonymousClientConfig(env.Management.Config)
	viewerConfig.BearerToken = tr.Status.Token
	viewer, err := client.New(viewerConfig, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the viewer's binding in force", func() string {
		if err := viewer.List(ctx, &multiclusterv1alpha1.ClusterList{}); err != nil {
			return err.Error()
		}
		return ""
	})
	srv, err := dashboard.New(dashboard.Options{Config: env.Management.Config, ViewerToken: true})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)

	resp, _ := watchStream(t, hs.URL+"/api/watch?resource=clusters", "") //nolint:bodyclose // watchStream closes it when the test ends
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", resp.StatusCode)
	}
	resp, next := watchStream(t, hs.URL+"/api/watch?resource=clusters&resource=multiclusterdeployments", tr.Status.Token) //nolint:bodyclose // watchStream closes it when the test ends
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("viewer's token: %d, want 200", resp.StatusCode)
	}
	got := map[string]line{}
	deadline := time.Now().Add(30 * time.Second)
	for len(got) < 2 && time.Now().Before(deadline) {
		l := next()
		got[l.Resource] = l
	}
	if got["clusters"].Type != "SYNC" {
		t.Errorf("clusters with the viewer's token: %+v, want a SYNC", got["clusters"])
	}
	if l := got["multiclusterdeployments"]; l.Type != "ERROR" || l.Code != http.StatusForbidden {
		t.Errorf("multiclusterdeployments with the viewer's token: %+v, want an ERROR with code 403", l)
	}
}
