// Package bestfit is the score plugin of seed 001's best-fit policy: the
// cluster with the least free resources ranks first, which packs load and
// keeps large clusters free for large workloads. Because the framework
// gives all replicas to the highest-ranked cluster that holds them all,
// best-fit picks the tightest cluster that still fits the workload.
//
// Free CPU and memory are combined as in package worstfit: a cluster's
// room is how many replicas of the workload its total free resources would
// hold (placement.ReplicasOn over TotalFree), so each requested resource
// counts in proportion to one replica's need of it.
package bestfit
