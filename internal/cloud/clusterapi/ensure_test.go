package clusterapi_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/cloud/clusterapi"
)

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
					Scheduler: bootstrapv1.Scheduler{
						ExtraArgs: []bootstrapv1.Arg{{Name: "config", Value: ptr.To("/etc/kubernetes/meridian-scheduler.yaml")}},
						ExtraVolumes: []bootstrapv1.HostPathMount{{
							Name: "meridian-scheduler", HostPath: "/etc/kubernetes/meridian-scheduler.yaml", MountPath: "/etc/kubernetes/meridian-scheduler.yaml",
							ReadOnly: ptr.To(true), PathType: corev1.HostPathFile,
						}},
					},
				},
				Files:             []bootstrapv1.File{{Path: "/etc/kubernetes/meridian-scheduler.yaml", Owner: "root:root", Permissions: "0644", Content: clusterapi.SchedulerConfig}},
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
				ObjectMeta: clusterv1.ObjectMeta{Labels: withPool(machineLabels, cloud.DefaultPool)},
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

// withPool is labels with the node pool label.
func withPool(labels map[string]string, pool string) map[string]string {
	out := maps.Clone(labels)
	out[multiclusterv1alpha1.LabelNodePool] = pool
	return out
}

func (s *suite) testPools(t *testing.T) {
	spec := s.namespace(t)
	ns := spec.Namespace
	spec.Pools = []cloud.Pool{
		{Name: "m1-large", Flavor: "m1.large", NodeCPU: resource.MustParse("4"), NodeMemory: resource.MustParse("8Gi"), Workers: 1},
		{Name: "m1-xlarge", Flavor: "m1.xlarge", NodeCPU: resource.MustParse("8"), NodeMemory: resource.MustParse("16Gi"), Workers: 2},
	}
	s.ensure(t, spec)
	type pool struct {
		Replicas    int32
		PoolLabel   string
		Flavor      string
		CapacityCPU string
	}
	got := map[string]pool{}
	for _, name := range []string{"cloud1-md-m1-large", "cloud1-md-m1-xlarge"} {
		md, tmpl, config := s.read(t, ns, object{machineDeploymentGVK, name}), s.read(t, ns, object{openStackMachineTemplate, name}), s.read(t, ns, object{configTemplateGVK, name})
		if md == nil || tmpl == nil || config == nil {
			t.Fatalf("pool %s: MachineDeployment %v, machine template %v, KubeadmConfigTemplate %v; want all three", name, md != nil, tmpl != nil, config != nil)
		}
		replicas, _, _ := unstructured.NestedInt64(md.Object, "spec", "replicas")
		label, _, _ := unstructured.NestedString(md.Object, "spec", "template", "metadata", "labels", multiclusterv1alpha1.LabelNodePool)
		flavor, _, _ := unstructured.NestedString(tmpl.Object, "spec", "template", "spec", "flavor")
		got[name] = pool{Replicas: int32(replicas), PoolLabel: label, Flavor: flavor, CapacityCPU: md.GetAnnotations()["capacity.cluster-autoscaler.kubernetes.io/cpu"]}
	}
	want := map[string]pool{
		"cloud1-md-m1-large":  {Replicas: 1, PoolLabel: "m1-large", Flavor: "m1.large", CapacityCPU: "4"},
		"cloud1-md-m1-xlarge": {Replicas: 2, PoolLabel: "m1-xlarge", Flavor: "m1.xlarge", CapacityCPU: "8"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
}
