package propagationpolicy_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// setup starts a management cluster with every Meridian controller and the
// namespace shop.
func setup(t *testing.T) client.Client {
	t.Helper()
	env := testenv.Start(t, testenv.Options{})
	mgmt := env.Management.Client
	for _, ns := range []string{"meridian-system", "shop"} {
		if err := mgmt.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{HeartbeatInterval: 500 * time.Millisecond})
		return err
	})
	return mgmt
}

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}
