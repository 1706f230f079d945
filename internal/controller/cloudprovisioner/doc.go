// Package cloudprovisioner reconciles CloudProvisioners: seed 001's cloud
// provisioner and cluster autoscaler (Algorithm 4) on real clusters.
//
// Every period the active CloudProvisioner (the oldest; the others stand
// by, so that one shortage never buys two clouds) observes:
//
//   - the replicas that fit nowhere: every MultiClusterDeployment's
//     unplaced replicas, and the pods Pending as Unschedulable in the cloud
//     cluster, each with its pod template's requests;
//   - the demand (every replica asked for) and the capacity of the member
//     clusters that are not cloud clusters, for the predictive mode;
//   - the cloud cluster itself: what the backend reports (every pool it
//     finds, those of removed flavors too); while it is being created, the
//     workers asked of its pools, as coming nodes; once it has joined, its
//     nodes (Ready, cordoned, draining, when they registered) with the pods
//     a drain would move, listed once per period and shared with the
//     drains.
//
// The decision is package provision's, the same code the simulator runs:
// provision a cluster sized for what is unschedulable, add nodes, remove
// unneeded nodes after the scale-down delay (draining one with pods first,
// one at a time), remove broken nodes, retire the pools of removed flavors,
// or remove the cluster once it has run no workload for the
// de-provisioning delay. A cloud.Backend
// carries it out (Cluster API for a real cloud, the testbed here).
//
// When the backend reports the cluster ready, the controller joins it: it
// writes the kubeconfig to a Secret and creates a Cluster with spec.cloud
// set, so that placement uses it last and gives it up first. Removal goes
// the other way: the Cluster is deleted first (its finalizer removes what
// Meridian propagated), then the backend removes the cloud cluster.
//
// What must survive a restart is in the status (the phase: a removal in
// progress goes on; the nodes asked for per pool, retired pools included;
// when the cluster became empty, so that the de-provisioning delay is not
// started again) and on the nodes (a drain and when it started). How long
// each node has been unneeded, and which nodes were seen Ready, is kept in
// memory only, so a restart delays a scale-down or a broken node's removal,
// and never hastens one.
package cloudprovisioner
