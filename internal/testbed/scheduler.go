package testbed

// packingSchedulerConfig makes a cluster's kube-scheduler pack pods
// (NodeResourcesFit with the MostAllocated strategy) instead of spreading
// them, as the Cluster API backend configures a cloud cluster's
// (internal/cloud/clusterapi) and the simulator models it, so that the
// testbed's cloud member empties nodes the same way. kwokctl adds the
// client connection.
const packingSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
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
