// Package sim is Meridian's discrete-event simulator: it replays a scenario
// (member clusters, latencies, a cloud, a workload) in virtual time against
// the same code the controllers run, and compares placement policies on the
// same workload.
//
// # What is real and what is modelled
//
// Real: every decision. A MultiClusterDeployment's pass is decide.Deployment
// and a MultiClusterJob's is decide.Job, the very functions the controllers
// call between reading and writing: held replicas, pending grace and
// overflow, assumptions, the placement framework (placement/plugins), the
// pull-back and the rollout's order (add before remove) are theirs. The
// multi-cluster HPA (package autoscale) and the cloud provisioner and
// cluster autoscaler (package provision, whose Observe builds its input
// from the workloads as the controller does) are the controllers' own
// decision code too, and workloads are converted from their objects'
// fields by workload.New. Pod requests go through placement.PodRequests
// from real corev1 Pods, and each decision's wall time is measured.
//
// Modelled: each member cluster node by node, with a kube-scheduler-like
// binder (package cluster); the members' Deployment and Job controllers
// (a member Deployment's pods follow its replicas at once, Pending ones
// removed first; a member Job starts its parallel pods; a pod whose node
// goes is made again in its member); the propagation of writes (instant);
// the time cloud clusters and nodes take to become usable (from the
// scenario); the CPU a service's load costs (package workload).
//
// # A run
//
// Each policy of the scenario gets a fresh world: the same tasks (generated
// once from the seed, or read from a trace), the same services, the same
// clusters. Events, in virtual time (package engine):
//
//   - A task is submitted at its submit time and its controller's pass runs
//     at once: a Deployment's or a Job's. A Job's pod completes after
//     running for the task's duration; a Deployment is deleted when its
//     duration has passed since submission.
//   - A pass comes back when its plan says (RequeueAfter: the end of a
//     pending grace period, a move waiting for new replicas, unplaced
//     replicas, the re-scheduler's interval), and shortly after any change
//     of a member's capacity (controllers.placementRetry, the inventory's
//     batching): every Deployment, and every Job with unplaced pods, as the
//     controllers re-queue them. The KubeFed baseline ("Propagate") writes
//     every replica into the first preferred cluster without looking.
//   - Every autoscaler period the multi-cluster HPA sets each autoscaled
//     service's replicas from its load, and its pass places the change.
//     TrafficAware services have a pass every traffic interval, with the
//     traffic they receive in the snapshot.
//   - Every provisioner period the provisioner decides on the cloud
//     cluster: provision (usable after the cluster delay), add nodes to a
//     pool (after the node delay), remove unneeded nodes (empty ones at
//     once; one with pods is cordoned and drained first, by the
//     controller's rule, provision.NextDrainStep: its pods are evicted,
//     terminate for 30 s and are made again in the cloud or moved by their
//     passes, then the empty node goes) or remove the idle cluster. Cloud
//     CPU is paid from request to removal.
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
