package testenv

import (
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// InstallCRDs installs Meridian's CRDs in c, a member that StartCluster
// starts without them (a sharing agent's cluster holds its
// Advertisements, Peers and auction messages).
func (c *Cluster) InstallCRDs(t testing.TB) {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	opts := envtest.CRDInstallOptions{Paths: []string{filepath.Join(root, "config", "crd", "bases")}, ErrorIfPathMissing: true}
	if _, err := envtest.InstallCRDs(c.Config, opts); err != nil {
		t.Fatalf("failed to install CRDs in %s: %v", c.Name, err)
	}
}

// CreateNamespaces creates the named namespaces in c.
func (c *Cluster) CreateNamespaces(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := c.Client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil {
			t.Fatalf("failed to create namespace %s in %s: %v", n, c.Name, err)
		}
	}
}
