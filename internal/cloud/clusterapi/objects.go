package clusterapi

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
)

// The kinds of Cluster API's core and kubeadm objects.
var (
	clusterKind               = clusterv1.GroupVersion.WithKind("Cluster")
	machineDeploymentKind     = clusterv1.GroupVersion.WithKind("MachineDeployment")
	machineKind               = clusterv1.GroupVersion.WithKind("Machine")
	controlPlaneKind          = controlplanev1.GroupVersion.WithKind("KubeadmControlPlane")
	kubeadmConfigTemplateKind = bootstrapv1.GroupVersion.WithKind("KubeadmConfigTemplate")
)

// The annotations by which the Kubernetes cluster autoscaler's Cluster API
// provider learns the size of a MachineDeployment's nodes before any exists;
// Meridian sets them from the spec's node size.
const (
	annotationCapacityCPU    = "capacity.cluster-autoscaler.kubernetes.io/cpu"
	annotationCapacityMemory = "capacity.cluster-autoscaler.kubernetes.io/memory"
)

func typeMeta(gvk schema.GroupVersionKind) metav1.TypeMeta {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func objectMeta(key client.ObjectKey) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}
}

// ref references an object of the same namespace by group and kind, as
// Cluster API's contract wants: the version comes from the CRD's contract
// label.
func ref(gvk schema.GroupVersionKind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: gvk.Group, Kind: gvk.Kind, Name: name}
}

// cluster is the Cluster: its networks and the references to the control
// plane and the infrastructure cluster.
func (b *Backend) cluster(infra infrastructure, n names) *clusterv1.Cluster {
	return &clusterv1.Cluster{
		TypeMeta:   typeMeta(clusterKind),
		ObjectMeta: objectMeta(n.key(n.cluster)),
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork: clusterv1.ClusterNetwork{
				Pods:     clusterv1.NetworkRanges{CIDRBlocks: b.opts.PodCIDRs},
				Services: clusterv1.NetworkRanges{CIDRBlocks: b.opts.ServiceCIDRs},
			},
			ControlPlaneRef:   ref(controlPlaneKind, n.controlPlane),
			InfrastructureRef: ref(infra.clusterKind(), n.cluster),
		},
	}
}

// controlPlane is a KubeadmControlPlane of one machine.
func (b *Backend) controlPlane(infra infrastructure, n names) *controlplanev1.KubeadmControlPlane {
	return &controlplanev1.KubeadmControlPlane{
		TypeMeta:   typeMeta(controlPlaneKind),
		ObjectMeta: objectMeta(n.key(n.controlPlane)),
		Spec: controlplanev1.KubeadmControlPlaneSpec{
			Replicas: ptr.To[int32](1),
			Version:  b.opts.KubernetesVersion,
			MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{
				Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{
					InfrastructureRef: ref(infra.machineTemplateKind(), n.controlPlane),
				},
			},
			KubeadmConfigSpec: bootstrapv1.KubeadmConfigSpec{
				ClusterConfiguration: bootstrapv1.ClusterConfiguration{
					ControllerManager: bootstrapv1.ControllerManager{ExtraArgs: infra.controllerManagerArgs()},
					Scheduler:         packingScheduler(),
				},
				Files:             []bootstrapv1.File{schedulerConfigFile()},
				InitConfiguration: bootstrapv1.InitConfiguration{NodeRegistration: infra.nodeRegistration()},
				JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: infra.nodeRegistration()},
			},
		},
	}
}

// configTemplate is the KubeadmConfigTemplate that joins the workers of
// pool p.
func (b *Backend) configTemplate(infra infrastructure, n names, p cloud.Pool) *bootstrapv1.KubeadmConfigTemplate {
	return &bootstrapv1.KubeadmConfigTemplate{
		TypeMeta:   typeMeta(kubeadmConfigTemplateKind),
		ObjectMeta: objectMeta(n.key(n.workers(p.Name))),
		Spec: bootstrapv1.KubeadmConfigTemplateSpec{
			Template: bootstrapv1.KubeadmConfigTemplateResource{
				Spec: bootstrapv1.KubeadmConfigSpec{
					JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: infra.nodeRegistration()},
				},
			},
		},
	}
}

// machineDeployment is the MachineDeployment of pool p's workers. Its
// selector is the pair of labels Cluster API puts on the Machines of a
// MachineDeployment; its Machines also carry the pool's name in
// LabelNodePool, which Cluster API copies to their Nodes.
func (b *Backend) machineDeployment(infra infrastructure, n names, p cloud.Pool) *clusterv1.MachineDeployment {
	workers := n.workers(p.Name)
	machine := n.machineLabels(p.Name)
	machine[multiclusterv1alpha1.LabelNodePool] = p.Name
	md := &clusterv1.MachineDeployment{
		TypeMeta:   typeMeta(machineDeploymentKind),
		ObjectMeta: objectMeta(n.key(workers)),
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: n.cluster,
			Replicas:    ptr.To(p.Workers),
			Selector:    metav1.LabelSelector{MatchLabels: n.machineLabels(p.Name)},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: machine},
				Spec: clusterv1.MachineSpec{
					ClusterName: n.cluster,
					Version:     b.opts.KubernetesVersion,
					Bootstrap: clusterv1.Bootstrap{
						ConfigRef: ref(kubeadmConfigTemplateKind, workers),
					},
					InfrastructureRef: ref(infra.machineTemplateKind(), workers),
				},
			},
		},
	}
	capacity := map[string]string{}
	if !p.NodeCPU.IsZero() {
		capacity[annotationCapacityCPU] = p.NodeCPU.String()
	}
	if !p.NodeMemory.IsZero() {
		capacity[annotationCapacityMemory] = p.NodeMemory.String()
	}
	if len(capacity) > 0 {
		md.Annotations = capacity
	}
	return md
}

// machineLabels select the Machines of a pool's MachineDeployment.
func (n names) machineLabels(pool string) map[string]string {
	return map[string]string{
		clusterv1.ClusterNameLabel:           n.cluster,
		clusterv1.MachineDeploymentNameLabel: n.workers(pool),
	}
}

// label sets spec.Labels on obj, and Cluster API's cluster-name label on
// every object but the Cluster itself, as Cluster API does on the objects
// of a cluster.
func label(obj client.Object, spec cloud.Spec, n names) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, spec.Labels)
	if obj.GetObjectKind().GroupVersionKind() != clusterKind {
		labels[clusterv1.ClusterNameLabel] = n.cluster
	}
	obj.SetLabels(labels)
}
