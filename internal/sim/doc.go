// Package sim is Meridian's discrete-event simulator: it replays a scenario
// (member clusters, latencies, a cloud, a workload) in virtual time against
// the same code the controllers run, and compares placement policies on the
// same workload.
//
// # What is real and what is modelled
//
// Real: the placement framework (placement/plugins.NewFramework) decides
// every placement, on snapshots built by placement.NewSnapshot, with pod
// requests computed by placement.PodRequests from real corev1 Pods, and its
// wall time is measured per call. The multi-cluster HPA (package autoscale),
// the cloud provisioner and cluster autoscaler (package provision) and the
// re-scheduler's plan (package reschedule) are the controllers' own decision
// code.
//
// Modelled: each member cluster node by node, with a kube-scheduler-like
// binder (package cluster); the propagation of decisions into member
// clusters (instant); the time cloud clusters and nodes take to become usable
// (from the scenario); the CPU a service's load costs (package workload).
//
// # A run
//
// Each policy of the scenario gets a fresh world: the same tasks (generated
// once from the seed, or read from a trace), the same services, the same
// clusters. Events, in virtual time (package engine):
//
//   - A task is submitted at its submit time and placed at once. A Job
//     replica completes after running for the task's duration; a Deployment
//     is deleted when its duration has passed since submission.
//   - Placement: the KubeFed baseline ("Propagate") creates every replica in
//     the first preferred cluster without looking; the other policies call
//     the framework, create the replicas it assigns and keep the rest
//     unplaced. Unplaced replicas are retried a few seconds after capacity
//     changes (a pod ends, a node or cluster joins), oldest workload first.
//   - Every autoscaler period the multi-cluster HPA sets each autoscaled
//     service's replicas from its load (scale-up placed at once, scale-down
//     taken from the cloud first, then the farthest clusters); under
//     traffic-aware placement a service none of whose replicas is where its
//     users are is placed afresh and moved there, adding before removing.
//   - Every provisioner period the provisioner decides on the cloud cluster:
//     provision (usable after the cluster delay), add nodes (after the node
//     delay), remove unneeded nodes (their pods are placed again) or remove
//     the idle cluster. Cloud CPU is paid from request to removal.
//   - Every re-scheduler period, Deployments running away from their
//     preferred clusters are pulled back where there is room: the new
//     replica is created first and the far one deleted once it runs.
//   - Every sample interval the state is recorded.
//
// # Measures
//
// A replica is pending when it is asked for and not Running: Pending in a
// member cluster (no node fits it) or unplaced in the management plane. The
// pending fraction is pending over asked at a sample; the summary gives its
// maximum and its mean over samples. A cluster's CPU allocation is the CPU
// requested by all pods assigned to it, Running or Pending, over its
// allocatable CPU (seed 001's "CPU allocation"). All numbers except the
// decision times are a function of the scenario and the seed.
package sim
