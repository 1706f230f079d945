package resourceplacement_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// setup starts a management cluster and members cluster1..N with one
// 4-CPU node each, all of Meridian's controllers, and the namespace shop
// in the management cluster.
func setup(t *testing.T, members int) (client.Client, map[string]client.Client) {
	t.Helper()
	env := testenv.Start(t, testenv.Options{Members: members})
	mgmt := env.Management.Client
	for _, ns := range []string{"meridian-system", "shop"} {
		if err := mgmt.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	clients := map[string]client.Client{}
	for i, m := range env.Members {
		name := fmt.Sprintf("cluster%d", i+1)
		clients[name] = m.Client
		addNode(t, m.Client, name+"-node")
		if err := mgmt.Create(t.Context(), m.KubeconfigSecret("meridian-system", name)); err != nil {
			t.Fatal(err)
		}
		c := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Spec.KubeconfigSecretRef.Name = name
		if err := mgmt.Create(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{HeartbeatInterval: 500 * time.Millisecond})
		return err
	})
	return mgmt, clients
}

func addNode(t *testing.T, c client.Client, name string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Spec.Taints = nil // no node lifecycle controller here to lift not-ready
	if err := c.Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}
	n.Status.Capacity = n.Status.Allocatable
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if err := c.Status().Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}
