package cloud

// PackingSchedulerConfig is the KubeSchedulerConfiguration of a cloud
// cluster's kube-scheduler, without its clientConnection (each backend adds
// its own): it packs pods (NodeResourcesFit with the MostAllocated strategy,
// as GKE's optimize-utilization profile does) instead of spreading them, so
// that nodes empty out and the provisioner's consolidation can remove them.
// The simulator's cloud cluster scores the same way (package cluster of
// internal/sim), so the cost it reports is the cost of this cluster.
const PackingSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
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
