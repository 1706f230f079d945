package clusterapi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
)

func (s *suite) testDelete(t *testing.T) {
	spec := s.namespace(t)
	ns := spec.Namespace
	s.ensure(t, spec)
	objects := objectsOf("cloud1")
	if diff := cmp.Diff(len(objects), len(s.existing(t, ns, objects))); diff != "" {
		t.Fatalf("objects written (-want +got):\n%s", diff)
	}
	for i := range 2 {
		if err := s.backend.Delete(t.Context(), spec); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
		if diff := cmp.Diff([]string(nil), s.existing(t, ns, objects)); diff != "" {
			t.Errorf("objects left after Delete #%d (-want +got):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(cloud.Status{Message: "no Cluster " + ns + "/cloud1"}, s.status(t, spec)); diff != "" {
			t.Errorf("Status after Delete #%d (-want +got):\n%s", i+1, diff)
		}
	}
	if err := s.capi.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "creds"}, &corev1.Secret{}); err != nil {
		t.Errorf("the credentials Secret is not the backend's to delete: %v", err)
	}
}

func (s *suite) testDeleteWithClusterAPI(t *testing.T) {
	spec := s.namespace(t)
	ns := spec.Namespace
	s.ensure(t, spec)
	objects := objectsOf("cloud1")
	cl := &clusterv1.Cluster{}
	key := client.ObjectKey{Namespace: ns, Name: "cloud1"}
	if err := s.capi.Get(t.Context(), key, cl); err != nil {
		t.Fatal(err)
	}
	// Cluster API's finalizer holds the Cluster until its machines are gone.
	base := cl.DeepCopy()
	cl.Finalizers = []string{clusterv1.ClusterFinalizer}
	if err := s.capi.Patch(t.Context(), cl, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}

	if err := s.backend.Delete(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	want := []string{"OpenStackCluster cloud1", "KubeadmControlPlane cloud1-control-plane", "Cluster cloud1", "MachineDeployment cloud1-md-0"}
	if diff := cmp.Diff(want, s.existing(t, ns, objects)); diff != "" {
		t.Errorf("objects while Cluster API deletes (-want +got):\n%s", diff)
	}
	want2 := cloud.Status{Exists: true, Pools: []cloud.PoolStatus{{Name: cloud.DefaultPool}}, Message: "Cluster " + ns + "/cloud1 is being deleted"}
	if diff := cmp.Diff(want2, s.status(t, spec)); diff != "" {
		t.Errorf("Status while Cluster API deletes (-want +got):\n%s", diff)
	}
	if err := s.backend.Ensure(t.Context(), spec); err == nil || !strings.Contains(err.Error(), "while it is being deleted") {
		t.Errorf("Ensure while Cluster API deletes returned %v, want an error saying the Cluster is being deleted", err)
	}
	if diff := cmp.Diff(want, s.existing(t, ns, objects)); diff != "" {
		t.Errorf("objects after Ensure while Cluster API deletes (-want +got):\n%s", diff)
	}

	// Cluster API is done: it would have deleted the rest before, this
	// test leaves them for Delete to find.
	if err := s.capi.Get(t.Context(), key, cl); err != nil {
		t.Fatal(err)
	}
	base = cl.DeepCopy()
	cl.Finalizers = nil
	if err := s.capi.Patch(t.Context(), cl, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cloud.Status{Message: "no Cluster " + ns + "/cloud1"}, s.status(t, spec)); diff != "" {
		t.Errorf("Status once the Cluster is gone (-want +got):\n%s", diff)
	}
	if err := s.backend.Delete(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string(nil), s.existing(t, ns, objects)); diff != "" {
		t.Errorf("objects left after Delete (-want +got):\n%s", diff)
	}
}

func (s *suite) testForeign(t *testing.T) {
	spec := s.namespace(t)
	foreign := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: spec.Namespace, Name: "cloud1"},
		Spec:       clusterv1.ClusterSpec{Paused: ptr.To(true)},
	}
	if err := s.capi.Create(t.Context(), foreign); err != nil {
		t.Fatal(err)
	}
	err := s.backend.Ensure(t.Context(), spec)
	if !errors.Is(err, cloud.ErrInvalidSpec) || !strings.Contains(err.Error(), "was not written by Meridian") {
		t.Errorf("Ensure returned %v, want an invalid spec error saying the Cluster is not Meridian's", err)
	}
	want := cloud.Status{Message: "Cluster " + spec.Namespace + "/cloud1 was not written by Meridian: choose another spec.cloudClusterName"}
	if diff := cmp.Diff(want, s.status(t, spec)); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}
	if err := s.backend.Delete(t.Context(), spec); err != nil {
		t.Errorf("Delete: %v", err)
	}
	if diff := cmp.Diff([]string{"Cluster cloud1"}, s.existing(t, spec.Namespace, objectsOf("cloud1"))); diff != "" {
		t.Errorf("objects after Ensure and Delete (-want +got):\n%s", diff)
	}
}
