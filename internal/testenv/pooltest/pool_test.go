// Package pooltest checks testenv's pool of API servers, which a package
// turns on with testenv.Main: a test gets the servers an earlier test
// stopped using, with nothing of what that test made, and nothing outlives
// the package's tests.
package pooltest

import (
	"fmt"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/procfs"
	"github.com/meridian-dev/meridian/internal/testenv"
)

func TestMain(m *testing.M) {
	code := testenv.Main(m)
	if code == 0 && !testing.Short() {
		// Main stopped every server: none may be left running.
		if left, err := procfs.Children(os.Getpid(), "kube-apiserver", "etcd"); err != nil || len(left) > 0 {
			fmt.Fprintf(os.Stderr, "processes left after testenv.Main: %v (%v)\n", left, err)
			code = 1
		}
	}
	os.Exit(code)
}

// TestAServerComesBackEmpty makes objects of every sort a test leaves
// behind (namespaced and cluster-scoped, with finalizers, a pod bound to a
// node that no kubelet will ever release, a custom resource) and shows that
// the next test gets the same servers without them, and that a member the
// first test stopped is replaced by a fresh one.
func TestAServerComesBackEmpty(t *testing.T) {
	var first *testenv.Env
	t.Run("dirty", func(t *testing.T) {
		first = testenv.Start(t, testenv.Options{Members: 2})
		ctx := t.Context()
		for _, c := range append([]*testenv.Cluster{first.Management}, first.Members...) {
			for _, obj := range []client.Object{
				&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "left"}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "left", Finalizers: []string{"example.com/hold"}}},
				&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}},
				&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bound", Namespace: "left"}, Spec: corev1.PodSpec{
					NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "pause"}}}},
				&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "left-role"}},
			} {
				if err := c.Client.Create(ctx, obj); err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
			}
			// A bound pod's deletion waits for its kubelet: no kubelet runs.
			if err := c.Client.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bound", Namespace: "left"}}); err != nil {
				t.Fatal(err)
			}
		}
		cl := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member-1", Finalizers: []string{"example.com/hold"}}}
		cl.Spec.KubeconfigSecretRef = multiclusterv1alpha1.SecretReference{Name: "member-1", Namespace: "left"}
		if err := first.Management.Client.Create(ctx, cl); err != nil {
			t.Fatal(err)
		}
		if err := first.Members[1].Stop(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("clean", func(t *testing.T) {
		env := testenv.Start(t, testenv.Options{Members: 2})
		if env.Management.Config.Host != first.Management.Config.Host || env.Members[0].Config.Host != first.Members[0].Config.Host {
			t.Errorf("the pool started new servers rather than reusing the idle ones")
		}
		if env.Members[1].Config.Host == first.Members[1].Config.Host {
			t.Errorf("the member the first test stopped was given again")
		}
		for _, c := range append([]*testenv.Cluster{env.Management}, env.Members...) {
			if err := c.Client.Get(t.Context(), client.ObjectKey{Name: "left"}, &corev1.Namespace{}); err == nil {
				t.Errorf("%s: namespace left by the first test is still there", c.Name)
			}
			var nodes corev1.NodeList
			if err := c.Client.List(t.Context(), &nodes); err != nil || len(nodes.Items) != 0 {
				t.Errorf("%s: nodes left by the first test: %d (%v)", c.Name, len(nodes.Items), err)
			}
			if err := c.Client.Get(t.Context(), client.ObjectKey{Name: "left-role"}, &rbacv1.ClusterRole{}); err == nil {
				t.Errorf("%s: ClusterRole left by the first test is still there", c.Name)
			}
			// What the server made itself stays.
			if err := c.Client.Get(t.Context(), client.ObjectKey{Name: "cluster-admin"}, &rbacv1.ClusterRole{}); err != nil {
				t.Errorf("%s: the server's own ClusterRole went: %v", c.Name, err)
			}
		}
		var clusters multiclusterv1alpha1.ClusterList
		if err := env.Management.Client.List(t.Context(), &clusters); err != nil || len(clusters.Items) != 0 {
			t.Errorf("Clusters left by the first test: %d (%v)", len(clusters.Items), err)
		}
		// The namespace's name is free again.
		if err := env.Management.Client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "left"}}); err != nil {
			t.Errorf("namespace of the first test's name cannot be made again: %v", err)
		}
	})
}
