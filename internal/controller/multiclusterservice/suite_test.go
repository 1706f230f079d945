package multiclusterservice_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcscrd "sigs.k8s.io/mcs-api/config/crd"

	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// setup starts a management cluster and members cluster1..N with one
// 4-CPU node each, all of Meridian's controllers, and the Multi-Cluster
// Services API CRDs in the members named in withMCS.
func setup(t *testing.T, members int, withMCS ...string) (*testenv.Env, map[string]client.Client) {
	t.Helper()
	env := testenv.Start(t, testenv.Options{Members: members})
	mgmt := env.Management.Client
	env.Management.CreateNamespaces(t, "meridian-system")
	clients := env.RegisterMembers(t, "meridian-system", "4", "16Gi")
	for _, name := range withMCS {
		testenv.InstallCRD(t, clients[name], mcscrd.ServiceExportCRD)
	}
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{HeartbeatInterval: 500 * time.Millisecond, OrphanSweepInterval: 500 * time.Millisecond})
		return err
	})
	if err := mgmt.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}); err != nil {
		t.Fatal(err)
	}
	return env, clients
}

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}
