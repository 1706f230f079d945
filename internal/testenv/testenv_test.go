package testenv_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/procfs"
	"github.com/meridian-dev/meridian/internal/testenv"
)

func TestStartManagementAndThreeMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real API servers")
	}
	t.Run("running", func(t *testing.T) {
		env := testenv.Start(t, testenv.Options{Members: 3})

		if got := len(env.Members); got != 3 {
			t.Fatalf("got %d members, want 3", got)
		}
		if got := len(apiServersOfThisProcess(t)); got != 4 {
			t.Errorf("got %d kube-apiserver processes, want 4", got)
		}

		var crd apiextensionsv1.CustomResourceDefinition
		key := client.ObjectKey{Name: "multiclusterdeployments.multicluster.meridian.dev"}
		if err := env.Management.Client.Get(t.Context(), key, &crd); err != nil {
			t.Fatalf("management cluster has no MultiClusterDeployment CRD: %v", err)
		}
		for _, m := range env.Members {
			if err := m.Client.Get(t.Context(), key, &crd); err == nil {
				t.Errorf("member %s has Meridian's CRDs; they belong to the management cluster only", m.Name)
			}
		}

		// Each member's kubeconfig reaches that member and no other: a
		// namespace made through it is seen by its own client only.
		for i, m := range env.Members {
			cfg, err := clientcmd.RESTConfigFromKubeConfig(m.Kubeconfig)
			if err != nil {
				t.Fatalf("kubeconfig of %s does not load: %v", m.Name, err)
			}
			c, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
			if err != nil {
				t.Fatal(err)
			}
			ns := &corev1.Namespace{}
			ns.Name = "made-through-kubeconfig-" + strconv.Itoa(i)
			if err := c.Create(t.Context(), ns); err != nil {
				t.Fatalf("failed to create namespace through kubeconfig of %s: %v", m.Name, err)
			}
			var seen []string
			for _, other := range append([]*testenv.Cluster{env.Management}, env.Members...) {
				if other.Client.Get(t.Context(), client.ObjectKeyFromObject(ns), &corev1.Namespace{}) == nil {
					seen = append(seen, other.Name)
				}
			}
			if diff := cmp.Diff([]string{m.Name}, seen); diff != "" {
				t.Errorf("clusters that see namespace %s (-want +got):\n%s", ns.Name, diff)
			}
		}
	})

	// The subtest's cleanups have run: nothing it started may be left.
	if left := apiServersOfThisProcess(t); len(left) != 0 {
		t.Errorf("processes left behind after the test: %v", left)
	}
	if left := childrenNamed(t, "etcd"); len(left) != 0 {
		t.Errorf("etcd processes left behind after the test: %v", left)
	}
}

func apiServersOfThisProcess(t *testing.T) []int { return childrenNamed(t, "kube-apiserver") }

// childrenNamed lists the live child processes of this test process whose
// command is name.
func childrenNamed(t *testing.T, name string) []int {
	t.Helper()
	found, err := procfs.Children(os.Getpid(), name)
	if err != nil {
		t.Fatal(err)
	}
	return found
}
