package dependencies_test

import (
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// setup starts a management cluster and members cluster1..N with one
// 4-CPU node each, all of Meridian's controllers, and the namespace shop
// in the management cluster.
func setup(t *testing.T, members int) (client.Client, map[string]client.Client) {
	t.Helper()
	env := testenv.Start(t, testenv.Options{Members: members})
	env.Management.CreateNamespaces(t, "meridian-system", "shop")
	clients := env.RegisterMembers(t, "meridian-system", "4", "16Gi")
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{HeartbeatInterval: 500 * time.Millisecond})
		return err
	})
	return env.Management.Client, clients
}

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}
