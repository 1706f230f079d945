package charts_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestMeridianChartInstallsIntoTheTestbed installs the chart into a
// testbed's management cluster (the controller with its webhook and the
// advisor) and into a member (the agent alone), checks that the API servers
// hold every object the releases rendered, upgrades the management release
// (the webhook keeps its certificate) and uninstalls both.
func TestMeridianChartInstallsIntoTheTestbed(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the install into a testbed in -short mode")
	}
	ctrllog.SetLogger(logr.Discard())
	dir := filepath.Join(t.TempDir(), "testbed")
	t.Cleanup(func() {
		if _, err := testbed.Down(context.Background(), dir); err != nil {
			t.Errorf("failed to stop the testbed: %v", err)
		}
	})
	tb, err := testbed.Up(t.Context(), testbed.Options{Name: "chart", Dir: dir,
		Profile: testbed.Uniform(testbed.UniformOptions{Clusters: 1, Nodes: 1})})
	if err != nil {
		t.Fatalf("failed to start the testbed: %v", err)
	}

	mgmt := install(t, tb.Management(), "meridian", "--set", "advisor.enabled=true")
	secret := &unstructured.Unstructured{}
	secret.SetAPIVersion("v1")
	secret.SetKind("Secret")
	key := client.ObjectKey{Namespace: "meridian-system", Name: "meridian-webhook-cert"}
	if err := mgmt.Get(t.Context(), key, secret); err != nil {
		t.Fatalf("the webhook's certificate Secret: %v", err)
	}
	before, _, _ := unstructured.NestedString(secret.Object, "data", "ca.crt")

	// An upgrade keeps the webhook's certificate: the CA the API server
	// trusts does not change under running replicas.
	if out, err := helm(t, "upgrade", "meridian", chart, "--namespace", "meridian-system",
		"--kubeconfig", kubeconfig(t, tb.Management()), "--set", "advisor.enabled=true,controller.replicas=3"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := mgmt.Get(t.Context(), key, secret); err != nil {
		t.Fatal(err)
	}
	if after, _, _ := unstructured.NestedString(secret.Object, "data", "ca.crt"); after != before {
		t.Error("helm upgrade replaced the webhook's CA")
	}

	install(t, tb.Members()[0], "meridian-agent", "--set", "controller.enabled=false,agent.enabled=true")

	for _, c := range []*testbed.Cluster{tb.Management(), tb.Members()[0]} {
		release := map[bool]string{true: "meridian", false: "meridian-agent"}[c.Role == testbed.RoleManagement]
		objs := manifest(t, c, release)
		if out, err := helm(t, "uninstall", release, "--namespace", "meridian-system", "--kubeconfig", kubeconfig(t, c), "--wait"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		cl, err := c.Client()
		if err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 30*time.Second, "every object of "+release+" gone from "+c.Name, func() string {
			for _, o := range objs {
				err := cl.Get(t.Context(), client.ObjectKeyFromObject(o), o.DeepCopy())
				if err == nil {
					return o.GetKind() + " " + o.GetName() + " still exists after helm uninstall"
				}
				if !apierrors.IsNotFound(err) {
					return err.Error()
				}
			}
			return ""
		})
	}
}

// install installs the chart as release into c's namespace meridian-system
// and checks that the API server holds every object of the release; it
// returns a client of c.
func install(t *testing.T, c *testbed.Cluster, release string, args ...string) client.Client {
	t.Helper()
	a := append([]string{"install", release, chart, "--namespace", "meridian-system", "--create-namespace",
		"--kubeconfig", kubeconfig(t, c)}, args...)
	if out, err := helm(t, a...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cl, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	objs := manifest(t, c, release)
	if len(objs) == 0 {
		t.Fatalf("release %s in %s has no objects", release, c.Name)
	}
	for _, o := range objs {
		if err := cl.Get(t.Context(), client.ObjectKeyFromObject(o), o.DeepCopy()); err != nil {
			t.Errorf("%s: %s %s of release %s: %v", c.Name, o.GetKind(), o.GetName(), release, err)
		}
	}
	t.Logf("%s: release %s installed, %d objects: %v", c.Name, release, len(objs), kinds(objs))
	return cl
}

// manifest returns the objects helm recorded for the release in c.
func manifest(t *testing.T, c *testbed.Cluster, release string) []*unstructured.Unstructured {
	t.Helper()
	out, err := helm(t, "get", "manifest", release, "--namespace", "meridian-system", "--kubeconfig", kubeconfig(t, c))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decode(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetNamespace() == "" && isNamespaced(o.GetKind()) {
			o.SetNamespace("meridian-system")
		}
	}
	return objs
}

// isNamespaced tells the chart's namespaced kinds from its cluster-scoped
// ones (the manifests helm records leave the namespace out when the
// template does).
func isNamespaced(kind string) bool {
	switch kind {
	case "ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "CustomResourceDefinition":
		return false
	}
	return true
}

// kubeconfig writes c's kubeconfig into a file and returns its path.
func kubeconfig(t *testing.T, c *testbed.Cluster) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), c.Name+".kubeconfig")
	if err := os.WriteFile(path, c.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
