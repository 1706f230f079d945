package clusterapi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
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
	t.Run("Status follows what Cluster API reports", s.testStatus)
	t.Run("shrinking marks the Machines of the removed nodes first", s.testShrink)
	t.Run("Delete removes everything when no Cluster API controller runs", s.testDelete)
	t.Run("Delete lets Cluster API tear the cluster down", s.testDeleteWithClusterAPI)
	t.Run("bad specs are refused before anything is written", s.testInvalid)
	t.Run("an object the API server rejects is named", s.testRejected)
	t.Run("a Cluster Meridian did not write is left alone", s.testForeign)
}

func (s *suite) testEnsure(t *testing.T) {
	spec := s.namespace(t)
	s.ensure(t, spec)
	ns := spec.Namespace

	ref := func(gvk schema.GroupVersionKind, name string) clusterv1.ContractVersionedObjectReference {
		return clusterv1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: gvk.Kind, Name: name}
	}
	registration := bootstrapv1.NodeRegistrationOptions{
		Name: "{{ local_hostname }}",
		KubeletExtraArgs: []bootstrapv1.Arg{
			{Name: "cloud-provider", Value: ptr.To("external")},
			{Name: "provider-id", Value: ptr.To("openstack:///{{ instance_id }}")},
		},
	}
	machineLabels := map[string]string{clusterv1.ClusterNameLabel: "cloud1", clusterv1.MachineDeploymentNameLabel: "cloud1-md-0"}
	for _, tc := range []struct {
		object object
		into   client.Object
		spec   func(client.Object) any
		want   any
	}{{
		object: object{clusterGVK, "cloud1"},
		into:   &clusterv1.Cluster{},
		spec:   func(o client.Object) any { return o.(*clusterv1.Cluster).Spec },
		want: clusterv1.ClusterSpec{
			ClusterNetwork: clusterv1.ClusterNetwork{
				Pods:     clusterv1.NetworkRanges{CIDRBlocks: []string{"192.168.0.0/16"}},
				Services: clusterv1.NetworkRanges{CIDRBlocks: []string{"10.96.0.0/12"}},
			},
			ControlPlaneRef:   ref(controlPlaneGVK, "cloud1-control-plane"),
			InfrastructureRef: ref(openStackCluster, "cloud1"),
		},
	}, {
		object: object{controlPlaneGVK, "cloud1-control-plane"},
		into:   &controlplanev1.KubeadmControlPlane{},
		spec:   func(o client.Object) any { return o.(*controlplanev1.KubeadmControlPlane).Spec },
		want: controlplanev1.KubeadmControlPlaneSpec{
			Replicas: ptr.To[int32](1),
			Version:  clusterapi.DefaultKubernetesVersion,
			MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{
				Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{InfrastructureRef: ref(openStackMachineTemplate, "cloud1-control-plane")},
			},
			KubeadmConfigSpec: bootstrapv1.KubeadmConfigSpec{
				ClusterConfiguration: bootstrapv1.ClusterConfiguration{
					ControllerManager: bootstrapv1.ControllerManager{ExtraArgs: []bootstrapv1.Arg{{Name: "cloud-provider", Value: ptr.To("external")}}},
				},
				InitConfiguration: bootstrapv1.InitConfiguration{NodeRegistration: registration},
				JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: registration},
			},
		},
	}, {
		object: object{configTemplateGVK, "cloud1-md-0"},
		into:   &bootstrapv1.KubeadmConfigTemplate{},
		spec:   func(o client.Object) any { return o.(*bootstrapv1.KubeadmConfigTemplate).Spec },
		want: bootstrapv1.KubeadmConfigTemplateSpec{Template: bootstrapv1.KubeadmConfigTemplateResource{
			Spec: bootstrapv1.KubeadmConfigSpec{JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: registration}},
		}},
	}, {
		object: object{machineDeploymentGVK, "cloud1-md-0"},
		into:   &clusterv1.MachineDeployment{},
		spec:   func(o client.Object) any { return o.(*clusterv1.MachineDeployment).Spec },
		want: clusterv1.MachineDeploymentSpec{
			ClusterName: "cloud1",
			Replicas:    ptr.To[int32](2),
			Selector:    metav1.LabelSelector{MatchLabels: machineLabels},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: machineLabels},
				Spec: clusterv1.MachineSpec{
					ClusterName:       "cloud1",
					Version:           clusterapi.DefaultKubernetesVersion,
					Bootstrap:         clusterv1.Bootstrap{ConfigRef: ref(configTemplateGVK, "cloud1-md-0")},
					InfrastructureRef: ref(openStackMachineTemplate, "cloud1-md-0"),
				},
			},
		},
	}} {
		t.Run(tc.object.String(), func(t *testing.T) {
			if err := s.capi.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: tc.object.name}, tc.into); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, tc.spec(tc.into)); diff != "" {
				t.Errorf("spec read back (-want +got):\n%s", diff)
			}
		})
	}

	for _, tc := range []struct {
		object object
		want   map[string]any
	}{{
		object: object{openStackCluster, "cloud1"},
		want: map[string]any{
			"identityRef":           map[string]any{"name": "creds", "cloudName": "openstack", "region": "nancy"},
			"managedSubnets":        []any{map[string]any{"cidr": "10.6.0.0/24"}},
			"managedSecurityGroups": map[string]any{"allowAllInClusterTraffic": true},
			"apiServerFloatingIP":   "192.0.2.10",
		},
	}, {
		object: object{openStackMachineTemplate, "cloud1-control-plane"},
		want: map[string]any{"template": map[string]any{"spec": map[string]any{
			"flavor": "m1.large",
			"image":  map[string]any{"filter": map[string]any{"name": "ubuntu-2404-kube-v1.36.3"}},
		}}},
	}, {
		object: object{openStackMachineTemplate, "cloud1-md-0"},
		want: map[string]any{"template": map[string]any{"spec": map[string]any{
			"flavor": "m1.large",
			"image":  map[string]any{"filter": map[string]any{"name": "ubuntu-2404-kube-v1.36.3"}},
		}}},
	}} {
		t.Run(tc.object.String(), func(t *testing.T) {
			u := s.read(t, ns, tc.object)
			if u == nil {
				t.Fatalf("%s not written", tc.object)
			}
			if diff := cmp.Diff(tc.want, u.Object["spec"]); diff != "" {
				t.Errorf("spec read back (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("labels, capacity, and no credentials", func(t *testing.T) {
		versions := map[string]string{}
		for _, o := range objectsOf("cloud1") {
			u := s.read(t, ns, o)
			want := map[string]string{"multicluster.meridian.dev/cloud-provisioner": "burst", clusterv1.ClusterNameLabel: "cloud1"}
			if o.kind == clusterGVK {
				delete(want, clusterv1.ClusterNameLabel)
			}
			if diff := cmp.Diff(want, u.GetLabels()); diff != "" {
				t.Errorf("labels of %s (-want +got):\n%s", o, diff)
			}
			data, err := json.Marshal(u.Object)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "application_credential") {
				t.Errorf("%s holds the content of the credentials Secret: %s", o, data)
			}
			versions[o.String()] = u.GetResourceVersion()
		}
		md := s.read(t, ns, object{machineDeploymentGVK, "cloud1-md-0"})
		wantCapacity := map[string]string{
			"capacity.cluster-autoscaler.kubernetes.io/cpu":    "4",
			"capacity.cluster-autoscaler.kubernetes.io/memory": "8Gi",
		}
		if diff := cmp.Diff(wantCapacity, md.GetAnnotations()); diff != "" {
			t.Errorf("MachineDeployment annotations (-want +got):\n%s", diff)
		}

		s.ensure(t, spec)
		again := map[string]string{}
		for _, o := range objectsOf("cloud1") {
			again[o.String()] = s.read(t, ns, o).GetResourceVersion()
		}
		if diff := cmp.Diff(versions, again); diff != "" {
			t.Errorf("a second Ensure of the same spec changed objects, resource versions (-want +got):\n%s", diff)
		}
	})
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

func (s *suite) testStatus(t *testing.T) {
	spec := s.namespace(t)
	ns := spec.Namespace
	kubeconfig := []byte("apiVersion: v1\nkind: Config\nclusters: []\n")
	if diff := cmp.Diff(cloud.Status{Message: "no Cluster " + ns + "/cloud1"}, s.status(t, spec)); diff != "" {
		t.Errorf("Status before Ensure (-want +got):\n%s", diff)
	}
	s.ensure(t, spec)

	setCluster := func(change func(*clusterv1.Cluster)) func(*testing.T) {
		return func(t *testing.T) { patchStatus(t, s, &clusterv1.Cluster{}, ns, "cloud1", change) }
	}
	setWorkers := func(replicas, ready int32) func(*testing.T) {
		return func(t *testing.T) {
			patchStatus(t, s, &clusterv1.MachineDeployment{}, ns, "cloud1-md-0", func(md *clusterv1.MachineDeployment) {
				md.Status.Replicas, md.Status.ReadyReplicas, md.Status.AvailableReplicas = ptr.To(replicas), ptr.To(ready), ptr.To(ready)
			})
		}
	}
	for _, step := range []struct {
		name string
		act  func(*testing.T)
		want cloud.Status
	}{{
		name: "just written",
		want: cloud.Status{Exists: true, Message: "waiting for the infrastructure (OpenStackCluster " + ns + "/cloud1)"},
	}, {
		name: "infrastructure not ready",
		act: setCluster(func(cl *clusterv1.Cluster) {
			cl.Status.Conditions = []metav1.Condition{
				condition(clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionFalse, clusterv1.NotReadyReason, "* NetworkReady: creating the network"),
			}
		}),
		want: cloud.Status{Exists: true, Message: "waiting for the infrastructure (OpenStackCluster " + ns + "/cloud1): * NetworkReady: creating the network"},
	}, {
		name: "infrastructure provisioned",
		act: setCluster(func(cl *clusterv1.Cluster) {
			cl.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
			cl.Status.Conditions = []metav1.Condition{
				condition(clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionTrue, clusterv1.ReadyReason, ""),
				condition(clusterv1.ClusterControlPlaneInitializedCondition, metav1.ConditionFalse, clusterv1.ClusterControlPlaneNotInitializedReason, "Control plane not yet initialized"),
			}
		}),
		want: cloud.Status{Exists: true, Message: "waiting for the control plane (KubeadmControlPlane " + ns + "/cloud1-control-plane): Control plane not yet initialized"},
	}, {
		name: "control plane initialized",
		act: setCluster(func(cl *clusterv1.Cluster) {
			cl.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
			cl.Status.Conditions = []metav1.Condition{
				condition(clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionTrue, clusterv1.ReadyReason, ""),
				condition(clusterv1.ClusterControlPlaneInitializedCondition, metav1.ConditionTrue, clusterv1.ClusterControlPlaneInitializedReason, ""),
			}
		}),
		want: cloud.Status{Exists: true, Message: "waiting for the kubeconfig Secret " + ns + "/cloud1-kubeconfig"},
	}, {
		name: "kubeconfig written",
		act: func(t *testing.T) {
			secret := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cloud1-kubeconfig", Labels: map[string]string{clusterv1.ClusterNameLabel: "cloud1"}},
				Type:       clusterv1.ClusterSecretType,
				Data:       map[string][]byte{clusterapi.KubeconfigKey: kubeconfig},
			}
			if err := s.capi.Create(t.Context(), secret); err != nil {
				t.Fatal(err)
			}
		},
		want: cloud.Status{Exists: true, Ready: true, Kubeconfig: kubeconfig, Message: "waiting for workers: 0 of 2 ready"},
	}, {
		name: "workers created",
		act:  setWorkers(2, 1),
		want: cloud.Status{Exists: true, Ready: true, Kubeconfig: kubeconfig, Workers: 2, ReadyWorkers: 1, Message: "waiting for workers: 1 of 2 ready"},
	}, {
		name: "workers ready",
		act:  setWorkers(2, 2),
		want: cloud.Status{Exists: true, Ready: true, Kubeconfig: kubeconfig, Workers: 2, ReadyWorkers: 2},
	}} {
		t.Run(step.name, func(t *testing.T) {
			if step.act != nil {
				step.act(t)
			}
			if diff := cmp.Diff(step.want, s.status(t, spec)); diff != "" {
				t.Errorf("Status (-want +got):\n%s", diff)
			}
		})
	}
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

func (s *suite) testShrink(t *testing.T) {
	spec := s.namespace(t)
	ns := spec.Namespace
	spec.Workers = 3
	s.ensure(t, spec)
	s.machine(t, ns, "cloud1-md-0-a", "cloud1-md-0", "node-a")
	s.machine(t, ns, "cloud1-md-0-b", "cloud1-md-0", "node-b")
	s.machine(t, ns, "cloud1-md-0-c", "cloud1-md-0", "node-c")
	s.machine(t, ns, "cloud1-other-x", "cloud1-other", "node-x")

	for _, step := range []struct {
		name         string
		workers      int32
		remove       []string
		wantMarked   []string
		wantReplicas int32
	}{{
		name:         "a node to remove but no fewer workers",
		workers:      3,
		remove:       []string{"node-a"},
		wantReplicas: 3,
	}, {
		name:         "one fewer: the first removable node in order",
		workers:      2,
		remove:       []string{"node-gone", "node-x", "node-b", "node-c"},
		wantMarked:   []string{"cloud1-md-0-b"},
		wantReplicas: 2,
	}, {
		name:         "two fewer: a marked node counts",
		workers:      0,
		remove:       []string{"node-b", "node-c"},
		wantMarked:   []string{"cloud1-md-0-b", "cloud1-md-0-c"},
		wantReplicas: 0,
	}} {
		t.Run(step.name, func(t *testing.T) {
			spec.Workers, spec.Remove = step.workers, step.remove
			s.ensure(t, spec)
			machines := &clusterv1.MachineList{}
			if err := s.capi.List(t.Context(), machines, client.InNamespace(ns)); err != nil {
				t.Fatal(err)
			}
			var marked []string
			for _, m := range machines.Items {
				if v, ok := m.Annotations[clusterv1.DeleteMachineAnnotation]; ok {
					marked = append(marked, m.Name+"="+v)
				}
			}
			want := []string{}
			for _, name := range step.wantMarked {
				want = append(want, name+"=yes")
			}
			slices.Sort(marked)
			if diff := cmp.Diff(want, marked, cmpEmpty); diff != "" {
				t.Errorf("Machines with %s (-want +got):\n%s", clusterv1.DeleteMachineAnnotation, diff)
			}
			md := &clusterv1.MachineDeployment{}
			if err := s.capi.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "cloud1-md-0"}, md); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ptr.To(step.wantReplicas), md.Spec.Replicas); diff != "" {
				t.Errorf("MachineDeployment replicas (-want +got):\n%s", diff)
			}
		})
	}
}

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

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
	want2 := cloud.Status{Exists: true, Message: "Cluster " + ns + "/cloud1 is being deleted"}
	if diff := cmp.Diff(want2, s.status(t, spec)); diff != "" {
		t.Errorf("Status while Cluster API deletes (-want +got):\n%s", diff)
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

func (s *suite) testInvalid(t *testing.T) {
	base := s.namespace(t)
	ns := base.Namespace
	for name, data := range map[string]map[string][]byte{
		"wrong-key":   {"cloud.yaml": []byte(cloudsYAML)},
		"other-cloud": {clusterapi.CloudsYAMLKey: []byte(strings.Replace(cloudsYAML, "  openstack:", "  other:", 1))},
	} {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
		if err := s.capi.Create(t.Context(), secret); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		change func(*cloud.Spec)
		want   []string
	}{{
		name:   "provider without support",
		change: func(s *cloud.Spec) { s.Provider = "AWS" },
		want:   []string{`spec.provider: Unsupported value: "AWS": supported values: "OpenStack"`},
	}, {
		name:   "no credentials",
		change: func(s *cloud.Spec) { s.CredentialsSecret = "" },
		want:   []string{"spec.credentialsSecretRef: Required value"},
	}, {
		name:   "credentials Secret missing",
		change: func(s *cloud.Spec) { s.CredentialsSecret = "nope" },
		want:   []string{`spec.credentialsSecretRef.name: Invalid value: "nope": no Secret ` + ns + `/nope: create it with a clouds.yaml key`},
	}, {
		name:   "credentials Secret without clouds.yaml",
		change: func(s *cloud.Spec) { s.CredentialsSecret = "wrong-key" },
		want:   []string{"Secret " + ns + "/wrong-key has no clouds.yaml key (keys: [cloud.yaml])"},
	}, {
		name:   "clouds.yaml without the cloud",
		change: func(s *cloud.Spec) { s.CredentialsSecret = "other-cloud" },
		want:   []string{`the clouds.yaml of Secret ` + ns + `/other-cloud has no cloud "openstack" (clouds: [other])`},
	}, {
		name:   "no flavor",
		change: func(s *cloud.Spec) { s.Flavor = "" },
		want:   []string{"spec.nodeSize.flavor: Required value"},
	}, {
		name:   "name too long for a MachineDeployment label",
		change: func(s *cloud.Spec) { s.Name = strings.Repeat("a", 59) },
		want:   []string{"spec.cloudClusterName: Invalid value: \"" + strings.Repeat("a", 59) + "\": must be at most 58 characters"},
	}, {
		name:   "name that is no host name",
		change: func(s *cloud.Spec) { s.Name = "Cloud.1" },
		want:   []string{`spec.cloudClusterName: Invalid value: "Cloud.1"`},
	}, {
		name:   "negative workers",
		change: func(s *cloud.Spec) { s.Workers = -1 },
		want:   []string{"status.desiredNodes: Invalid value: -1: must be 0 or more"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			spec := base
			tc.change(&spec)
			err := s.backend.Ensure(t.Context(), spec)
			if !errors.Is(err, cloud.ErrInvalidSpec) {
				t.Fatalf("Ensure returned %v, want an error wrapping %v", err, cloud.ErrInvalidSpec)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Ensure error %q does not say %q", err, want)
				}
			}
			if got := s.existing(t, ns, objectsOf("cloud1")); got != nil {
				t.Errorf("objects written for a bad spec: %v", got)
			}
		})
	}
}

func (s *suite) testRejected(t *testing.T) {
	spec := s.namespace(t)
	for _, tc := range []struct {
		name    string
		backend func(*testing.T) *clusterapi.Backend
		spec    func(cloud.Spec) cloud.Spec
		want    string
	}{{
		name: "label value the API server refuses",
		spec: func(s cloud.Spec) cloud.Spec {
			s.Labels = map[string]string{"team": "not a label value"}
			return s
		},
		want: "failed to apply OpenStackCluster " + spec.Namespace + "/cloud1: ",
	}, {
		name: "more pod networks than the Cluster CRD allows",
		backend: func(t *testing.T) *clusterapi.Backend {
			cidrs := make([]string, 101)
			for i := range cidrs {
				cidrs[i] = fmt.Sprintf("10.%d.0.0/16", i)
			}
			b, err := clusterapi.New(s.mgmt, clusterapi.Options{PodCIDRs: cidrs})
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		spec: func(s cloud.Spec) cloud.Spec { return s },
		want: "failed to apply Cluster " + spec.Namespace + "/cloud1: ",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b := s.backend
			if tc.backend != nil {
				b = tc.backend(t)
			}
			err := b.Ensure(t.Context(), tc.spec(spec))
			if err == nil || errors.Is(err, cloud.ErrInvalidSpec) || !apierrors.IsInvalid(err) {
				t.Fatalf("Ensure returned %v, want the API server's Invalid error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Ensure error %q does not start with %q", err, tc.want)
			}
		})
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
