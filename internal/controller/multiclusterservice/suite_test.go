package multiclusterservice_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
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
		installServiceExportCRD(t, clients[name])
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

// installServiceExportCRD installs the real ServiceExport CRD shipped with
// sigs.k8s.io/mcs-api.
func installServiceExportCRD(t *testing.T, c client.Client) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(mcscrd.ServiceExportCRD, crd); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	eventually(t, "ServiceExport CRD established", func() string {
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

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}
