// Package multiclusterservice reconciles MultiClusterServices: each finds
// the MultiClusterDeployment whose pod template its selector matches, and
// keeps a Service, and a Multi-Cluster Services API ServiceExport, in
// exactly the member clusters that host that deployment's replicas. When
// the deployment moves, the Service follows: it is written into the new
// members and removed from the ones left. Deletion removes every member
// Service; the orphan sweeper removes those left in members that were
// unreachable at the time.
package multiclusterservice
