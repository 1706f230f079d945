package clusterapi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/cloud/clusterapi"
)

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
		want: cloud.Status{Exists: true, Pools: []cloud.PoolStatus{{Name: cloud.DefaultPool}}, Message: "waiting for the infrastructure (OpenStackCluster " + ns + "/cloud1)"},
	}, {
		name: "infrastructure not ready",
		act: setCluster(func(cl *clusterv1.Cluster) {
			cl.Status.Conditions = []metav1.Condition{
				condition(clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionFalse, clusterv1.NotReadyReason, "* NetworkReady: creating the network"),
			}
		}),
		want: cloud.Status{Exists: true, Pools: []cloud.PoolStatus{{Name: cloud.DefaultPool}}, Message: "waiting for the infrastructure (OpenStackCluster " + ns + "/cloud1): * NetworkReady: creating the network"},
	}, {
		name: "infrastructure provisioned",
		act: setCluster(func(cl *clusterv1.Cluster) {
			cl.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
			cl.Status.Conditions = []metav1.Condition{
				condition(clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionTrue, clusterv1.ReadyReason, ""),
				condition(clusterv1.ClusterControlPlaneInitializedCondition, metav1.ConditionFalse, clusterv1.ClusterControlPlaneNotInitializedReason, "Control plane not yet initialized"),
			}
		}),
		want: cloud.Status{Exists: true, Pools: []cloud.PoolStatus{{Name: cloud.DefaultPool}}, Message: "waiting for the control plane (KubeadmControlPlane " + ns + "/cloud1-control-plane): Control plane not yet initialized"},
	}, {
		name: "control plane initialized",
		act: setCluster(func(cl *clusterv1.Cluster) {
			cl.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
			cl.Status.Conditions = []metav1.Condition{
				condition(clusterv1.ClusterInfrastructureReadyCondition, metav1.ConditionTrue, clusterv1.ReadyReason, ""),
				condition(clusterv1.ClusterControlPlaneInitializedCondition, metav1.ConditionTrue, clusterv1.ClusterControlPlaneInitializedReason, ""),
			}
		}),
		want: cloud.Status{Exists: true, Pools: []cloud.PoolStatus{{Name: cloud.DefaultPool}}, Message: "waiting for the kubeconfig Secret " + ns + "/cloud1-kubeconfig"},
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
		want: cloud.Status{Exists: true, Ready: true, Kubeconfig: kubeconfig, Pools: []cloud.PoolStatus{{Name: cloud.DefaultPool}}, Message: "waiting for workers: 0 of 2 ready"},
	}, {
		name: "workers created",
		act:  setWorkers(2, 1),
		want: cloud.Status{Exists: true, Ready: true, Kubeconfig: kubeconfig, Workers: 2, ReadyWorkers: 1, Pools: []cloud.PoolStatus{{Name: cloud.DefaultPool, Workers: 2, ReadyWorkers: 1}}, Message: "waiting for workers: 1 of 2 ready"},
	}, {
		name: "workers ready",
		act:  setWorkers(2, 2),
		want: cloud.Status{Exists: true, Ready: true, Kubeconfig: kubeconfig, Workers: 2, ReadyWorkers: 2, Pools: []cloud.PoolStatus{{Name: cloud.DefaultPool, Workers: 2, ReadyWorkers: 2}}},
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
