package clusterapi

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// schedulerConfigPath is where the control-plane machine keeps the
// kube-scheduler's configuration.
const schedulerConfigPath = "/etc/kubernetes/meridian-scheduler.yaml"

// schedulerConfig is cloud.PackingSchedulerConfig with the kubeconfig
// kubeadm writes for the scheduler.
const schedulerConfig = cloud.PackingSchedulerConfig + `clientConnection:
  kubeconfig: /etc/kubernetes/scheduler.conf
`

// packingScheduler is the kube-scheduler of the control plane, started by
// kubeadm with --config pointing at the file schedulerConfigFile writes.
func packingScheduler() bootstrapv1.Scheduler {
	return bootstrapv1.Scheduler{
		ExtraArgs: []bootstrapv1.Arg{{Name: "config", Value: ptr.To(schedulerConfigPath)}},
		ExtraVolumes: []bootstrapv1.HostPathMount{{
			Name: "meridian-scheduler", HostPath: schedulerConfigPath, MountPath: schedulerConfigPath,
			ReadOnly: ptr.To(true), PathType: corev1.HostPathFile,
		}},
	}
}

// schedulerConfigFile is the file kubeadm writes on the control-plane
// machine before it starts the kube-scheduler.
func schedulerConfigFile() bootstrapv1.File {
	return bootstrapv1.File{Path: schedulerConfigPath, Owner: "root:root", Permissions: "0644", Content: schedulerConfig}
}
