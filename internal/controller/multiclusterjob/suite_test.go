package multiclusterjob_test

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

// setup starts a management cluster, three members (cluster1 with 2 CPUs,
// cluster2 and cluster3 with 8; cluster3 is 2 ms from cluster1, cluster2
// 20 ms; their grid zones PL, DE and NO-NO1) and all of Meridian's
// controllers.
func setup(t *testing.T) (client.Client, map[string]client.Client) {
	t.Helper()
	return setupWith(t, controller.Options{})
}

// setupWith is setup with the controllers' options opts (the heartbeat and
// pending grace are the test's).
func setupWith(t *testing.T, opts controller.Options) (client.Client, map[string]client.Client) {
	t.Helper()
	env := testenv.Start(t, testenv.Options{Members: 3})
	mgmt := env.Management.Client
	for _, ns := range []string{"meridian-system", "batch"} {
		if err := mgmt.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	cpus := []string{"2", "8", "8"}
	gridZones := []string{"PL", "DE", "NO-NO1"}
	latencies := map[string]time.Duration{"cluster2": 20 * time.Millisecond, "cluster3": 2 * time.Millisecond}
	clients := map[string]client.Client{}
	for i, m := range env.Members {
		name := fmt.Sprintf("cluster%d", i+1)
		clients[name] = m.Client
		addNode(t, m.Client, name+"-node", cpus[i])
		if err := mgmt.Create(t.Context(), m.KubeconfigSecret("meridian-system", name)); err != nil {
			t.Fatal(err)
		}
		c := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Spec.KubeconfigSecretRef.Name = name
		c.Spec.GridZone = gridZones[i]
		if name == "cluster1" {
			for other, d := range latencies {
				c.Spec.Latencies = append(c.Spec.Latencies, multiclusterv1alpha1.ClusterLatency{Cluster: multiclusterv1alpha1.ClusterName(other), RTT: metav1.Duration{Duration: d}})
			}
		}
		if err := mgmt.Create(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		opts.HeartbeatInterval, opts.PendingGrace = 500*time.Millisecond, time.Second
		_, err := controller.Setup(mgr, opts)
		return err
	})
	testenv.Eventually(t, 30*time.Second, "members Ready", func() string {
		var list multiclusterv1alpha1.ClusterList
		if err := mgmt.List(t.Context(), &list); err != nil {
			return err.Error()
		}
		for _, c := range list.Items {
			if c.Status.NodeCount == 0 {
				return c.Name + " has no nodes yet"
			}
		}
		return ""
	})
	return mgmt, clients
}

func addNode(t *testing.T, c client.Client, name, cpu string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Spec.Taints = nil // no node lifecycle controller here to lift not-ready
	if err := c.Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("110")}
	n.Status.Capacity = n.Status.Allocatable
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if err := c.Status().Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}
