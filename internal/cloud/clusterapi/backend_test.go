package clusterapi_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud/clusterapi"
)

var (
	openStackCluster         = schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackCluster"}
	openStackMachineTemplate = schema.GroupVersionKind{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta1", Kind: "OpenStackMachineTemplate"}
	clusterGVK               = clusterv1.GroupVersion.WithKind("Cluster")
	machineDeploymentGVK     = clusterv1.GroupVersion.WithKind("MachineDeployment")
	controlPlaneGVK          = controlplanev1.GroupVersion.WithKind("KubeadmControlPlane")
	configTemplateGVK        = bootstrapv1.GroupVersion.WithKind("KubeadmConfigTemplate")
)

// object names one object the backend writes.
type object struct {
	kind schema.GroupVersionKind
	name string
}

func (o object) String() string { return o.kind.Kind + " " + o.name }

// objectsOf are the objects the backend writes for a cluster named name.
func objectsOf(name string) []object {
	return []object{
		{openStackCluster, name},
		{openStackMachineTemplate, name + "-control-plane"},
		{openStackMachineTemplate, name + "-md-0"},
		{configTemplateGVK, name + "-md-0"},
		{controlPlaneGVK, name + "-control-plane"},
		{clusterGVK, name},
		{machineDeploymentGVK, name + "-md-0"},
	}
}

// read returns the object, or nil when it does not exist.
func (s *suite) read(t *testing.T, namespace string, o object) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.kind)
	err := s.capi.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: o.name}, u)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("failed to read %s: %v", o, err)
	}
	return u
}

// existing lists which of objects exist.
func (s *suite) existing(t *testing.T, namespace string, objects []object) []string {
	t.Helper()
	var out []string
	for _, o := range objects {
		if s.read(t, namespace, o) != nil {
			out = append(out, o.String())
		}
	}
	return out
}

func TestBackend(t *testing.T) {
	s := setup(t, clusterapi.Options{})
	t.Run("Ensure writes objects the Cluster API CRDs accept", s.testEnsure)
	t.Run("each pool is a MachineDeployment with its templates", s.testPools)
	t.Run("Status follows what Cluster API reports", s.testStatus)
	t.Run("shrinking marks the Machines of the removed nodes first", s.testShrink)
	t.Run("a pool whose flavor was removed is reported, scaled down and deleted", s.testRetire)
	t.Run("Delete removes everything when no Cluster API controller runs", s.testDelete)
	t.Run("Delete lets Cluster API tear the cluster down", s.testDeleteWithClusterAPI)
	t.Run("bad specs are refused before anything is written", s.testInvalid)
	t.Run("an object the API server rejects is named", s.testRejected)
	t.Run("a Cluster Meridian did not write is left alone", s.testForeign)
}

// patchStatus changes the status of the object of kind into named name as
// Cluster API's controllers would.
func patchStatus[T client.Object](t *testing.T, s *suite, into T, namespace, name string, change func(T)) {
	t.Helper()
	if err := s.capi.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: name}, into); err != nil {
		t.Fatal(err)
	}
	base := into.DeepCopyObject().(T)
	change(into)
	if err := s.capi.Status().Patch(t.Context(), into, client.MergeFrom(base)); err != nil {
		t.Fatalf("failed to write the status of %s: %v", name, err)
	}
}

func condition(typ string, status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.Now()}
}

// machine creates a Machine of the cluster's MachineDeployment (or of
// another one) with a node, as the MachineSet controller and the Machine
// controller would.
func (s *suite) machine(t *testing.T, namespace, name, deployment, node string) {
	t.Helper()
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{
			clusterv1.ClusterNameLabel:           "cloud1",
			clusterv1.MachineDeploymentNameLabel: deployment,
		}},
		Spec: clusterv1.MachineSpec{
			ClusterName:       "cloud1",
			Bootstrap:         clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: name}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: openStackCluster.Group, Kind: "OpenStackMachine", Name: name},
		},
	}
	if err := s.capi.Create(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	patchStatus(t, s, m, namespace, name, func(m *clusterv1.Machine) { m.Status.NodeRef = clusterv1.MachineNodeReference{Name: node} })
}

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })
