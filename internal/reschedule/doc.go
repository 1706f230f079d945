// Package reschedule plans seed 001's multi-cluster re-scheduler: replicas
// that were placed away from their preferred clusters (on a cloud cluster,
// or on a substitute because the preferred ones were full) are pulled back
// to the preferred clusters once those have room.
//
// The plan is exact: room is counted node by node, and each move reserves
// the room it takes, so one pass never plans more replicas into a node than
// fit. A move is carried out by adding the replica in the preferred cluster
// first and removing the far one only once the new one runs, so a pull-back
// never lowers the number of Running replicas.
//
// Replicas leave cloud clusters first (they cost money and are what the
// re-scheduler exists for), then substitutes from the farthest to the
// nearest by latency from the first preferred cluster (RemovalOrder).
// Which replicas a scale-down removes is the placement framework's choice,
// not this package's. Package decide calls Plan in a workload's pass.
package reschedule
