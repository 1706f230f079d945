package clusterapi_test

import (
	"fmt"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/cloud/clusterapi"
	"github.com/meridian-dev/meridian/internal/scheme"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// fieldManagerCAPI is the field manager the test writes with when it plays
// Cluster API's controllers.
const fieldManagerCAPI = "capi-controller-manager"

// suite is a management cluster with Cluster API's CRDs (and the stand-ins
// of CAPO's), the backend under test, and a client that knows the Cluster
// API types, with which the test plays Cluster API's controllers.
type suite struct {
	backend *clusterapi.Backend
	// mgmt is the management cluster's usual client, the backend's.
	mgmt client.Client
	// capi reads and writes the Cluster API types; the backend itself uses
	// the management cluster's usual client, whose scheme has none.
	capi client.Client
	// namespaces counts the namespaces made so far.
	namespaces int
}

func setup(t *testing.T, opts clusterapi.Options) *suite {
	t.Helper()
	crds := append(capiCRDs(t), filepath.Join("testdata", "openstack"))
	env := testenv.Start(t, testenv.Options{ExtraCRDPaths: crds})
	backend, err := clusterapi.New(env.Management.Client, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := scheme.New()
	for _, add := range []func(*runtime.Scheme) error{clusterv1.AddToScheme, controlplanev1.AddToScheme, bootstrapv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	capi, err := client.New(env.Management.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return &suite{backend: backend, mgmt: env.Management.Client, capi: client.WithFieldOwner(capi, fieldManagerCAPI)}
}

// cloudsYAML is a clouds.yaml with one cloud, "openstack", as CAPO's
// identityRef reads it.
const cloudsYAML = `clouds:
  openstack:
    auth:
      auth_url: https://keystone.example:5000/v3
      application_credential_id: id
      application_credential_secret: secret
    region_name: RegionOne
    interface: public
    identity_api_version: 3
    auth_type: v3applicationcredential
`

// namespace makes a new namespace with a credentials Secret "creds" and
// returns a spec of a cluster "cloud1" of two m1.large workers in it.
func (s *suite) namespace(t *testing.T) cloud.Spec {
	t.Helper()
	s.namespaces++
	ns := fmt.Sprintf("ns%d", s.namespaces)
	if err := s.capi.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "creds"},
		Data:       map[string][]byte{clusterapi.CloudsYAMLKey: []byte(cloudsYAML)},
	}
	if err := s.capi.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	return cloud.Spec{
		Name:       "cloud1",
		Namespace:  ns,
		Provider:   clusterapi.ProviderOpenStack,
		Region:     "nancy",
		FloatingIP: "192.0.2.10",
		Pools: []cloud.Pool{{
			Name:       cloud.DefaultPool,
			Flavor:     "m1.large",
			NodeCPU:    resource.MustParse("4"),
			NodeMemory: resource.MustParse("8Gi"),
			Workers:    2,
		}},
		CredentialsSecret: "creds",
		Labels:            map[string]string{"multicluster.meridian.dev/cloud-provisioner": "burst"},
	}
}

// ensure calls Ensure and fails t on an error.
func (s *suite) ensure(t *testing.T, spec cloud.Spec) {
	t.Helper()
	if err := s.backend.Ensure(t.Context(), spec); err != nil {
		t.Fatalf("Ensure: %v", err)
	}
}

// status calls Status and fails t on an error.
func (s *suite) status(t *testing.T, spec cloud.Spec) cloud.Status {
	t.Helper()
	st, err := s.backend.Status(t.Context(), spec)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	return st
}
