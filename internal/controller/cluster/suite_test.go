package cluster_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/controller/cluster"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// start starts a management cluster with members and the Cluster controller
// with a fast heartbeat.
func start(t *testing.T, members int) (*testenv.Env, *inventory.Inventory) {
	t.Helper()
	env := testenv.Start(t, testenv.Options{Members: members})
	inv := inventory.New(inventory.Options{ChangeInterval: 100 * time.Millisecond})
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		if err := mgr.Add(inv); err != nil {
			return err
		}
		return (&cluster.Reconciler{
			Client:            mgr.GetClient(),
			Inventory:         inv,
			Recorder:          mgr.GetEventRecorder("cluster"),
			HeartbeatInterval: 500 * time.Millisecond,
			HeartbeatTimeout:  time.Second,
			CleanupTimeout:    5 * time.Second,
		}).SetupWithManager(mgr)
	})
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "meridian-system"}}
	if err := env.Management.Client.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	return env, inv
}

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 45*time.Second, what, check)
}

func addNode(t *testing.T, c client.Client, name, cpu string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Status.Capacity = corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	n.Status.Allocatable = n.Status.Capacity
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if err := c.Status().Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}
