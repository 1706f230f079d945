package testenv

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
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

// AddNode creates a Ready, untainted node in c with cpu and memory
// allocatable and room for 110 pods (no node lifecycle controller runs
// here to lift the not-ready taint the API server puts on a new node).
func (c *Cluster) AddNode(t testing.TB, name, cpu, memory string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Client.Create(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Spec.Taints = nil
	if err := c.Client.Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory), corev1.ResourcePods: resource.MustParse("110")}
	n.Status.Capacity = n.Status.Allocatable
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if err := c.Client.Status().Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}

// RegisterMembers registers every member of e in its management cluster
// as cluster1..N: a kubeconfig Secret in namespace and a Cluster, with one
// node of cpu and memory (named clusterN-node) in each member. It returns
// the members' clients by Cluster name.
func (e *Env) RegisterMembers(t testing.TB, namespace, cpu, memory string) map[string]client.Client {
	t.Helper()
	clients := map[string]client.Client{}
	for i, m := range e.Members {
		name := fmt.Sprintf("cluster%d", i+1)
		clients[name] = m.Client
		m.AddNode(t, name+"-node", cpu, memory)
		if err := e.Management.Client.Create(t.Context(), m.KubeconfigSecret(namespace, name)); err != nil {
			t.Fatal(err)
		}
		c := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Spec.KubeconfigSecretRef.Name = name
		if err := e.Management.Client.Create(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	return clients
}

// InstallCRD creates the CustomResourceDefinition of a YAML document in the
// cluster c reaches and waits until it is established.
func InstallCRD(t testing.TB, c client.Client, data []byte) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	Eventually(t, time.Minute, "CRD "+crd.Name+" established", func() string {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(crd), crd); err != nil {
			return err.Error()
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return ""
			}
		}
		return "not established"
	})
}
