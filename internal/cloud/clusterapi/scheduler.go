package clusterapi

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
)

// schedulerConfigPath is where the control-plane machine keeps the
// kube-scheduler's configuration.
const schedulerConfigPath = "/etc/kubernetes/meridian-scheduler.yaml"

// schedulerConfig makes the cloud cluster's kube-scheduler pack pods
// (NodeResourcesFit with the MostAllocated strategy, as GKE's
// optimize-utilization profile does) instead of spreading them, so that
// nodes empty out and the provisioner's consolidation can remove them. The
// simulator's cloud cluster scores the same way (package cluster of
// internal/sim), so the cost it reports is the cost of this cluster.
const schedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /etc/kubernetes/scheduler.conf
profiles:
  - schedulerName: default-scheduler
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources:
              - {name: cpu, weight: 1}
              - {name: memory, weight: 1}
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
