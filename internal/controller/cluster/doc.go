// Package cluster reconciles Cluster objects: it connects the inventory to
// each member with the kubeconfig its Secret holds, sends a heartbeat every
// interval, and reports health (the Ready condition, with the error when the
// member does not answer), the Kubernetes version, and capacity summaries in
// the Cluster's status. A member that stops answering turns NotReady within
// one heartbeat interval plus the heartbeat timeout.
//
// Deleting a Cluster removes what Meridian created in the member (when the
// member still answers) before the inventory forgets it, so unjoining leaves
// no workload behind.
package cluster
