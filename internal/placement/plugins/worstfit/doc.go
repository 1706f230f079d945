// Package worstfit is the score plugin of seed 001's worst-fit policy: the
// cluster with the most free resources ranks first, which spreads load.
//
// Free CPU and memory are combined by measuring them in replicas of the
// workload: a cluster's room is min(free CPU / requested CPU, free memory /
// requested memory, free extended resources / requested, free pod slots),
// summed over its schedulable nodes (placement.ReplicasOn over TotalFree).
// Only the resources the workload requests count, each in proportion to how
// much of it one replica needs, so a CPU-bound workload is ranked by CPU and
// a cluster rich in a resource the workload does not need gains nothing.
// Whether the replicas really fit, node by node, is the framework's exact
// count; this ranking is on totals, as in the paper.
package worstfit
