// Package inventory keeps Meridian's view of its member clusters: one
// connection per Cluster (built from the kubeconfig its Secret holds), an
// informer cache of the member's nodes and pods, and a capacity index that
// turns them into the placement framework's Snapshot.
//
// The capacity index is incremental: node and pod events update per-node
// allocatable and requested sums (pods bound to a node and not finished, with
// requests computed as kube-scheduler computes them), so a snapshot never
// lists the pods. Each member's nodes carry a generation that changes only
// with what a snapshot reads; a snapshot copies the nodes of the members
// whose generation changed since the previous one and shares the rest with
// it (placement.Snapshots). Pods are stored in the cache trimmed to the
// fields that matter for capacity and status.
//
// Health is a heartbeat: Heartbeat asks the member's API server for its
// version with a deadline, and the Cluster controller turns the answer into
// the Ready condition. A member that stops answering keeps its last known
// nodes in the index but is marked not ready, so placement filters it out.
package inventory
