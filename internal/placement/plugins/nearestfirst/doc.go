// Package nearestfirst is the score plugin behind seed 001's nearest-first
// substitution and bursting: clusters closer (by round-trip time,
// Snapshot.Latency) to the workload's origin rank higher.
//
// The origin is the first preferred location; without locations, the
// cluster that receives the most traffic for the workload; without traffic,
// the cluster that holds most of its replicas now (ties to the first name).
// A workload with none of these has no origin, and every cluster scores 0.
// A cluster whose latency to the origin is unknown scores 0, the origin
// itself MaxScore.
//
// Cloud clusters are not special here: the framework always visits them
// last, so among the overflow targets they come after every member cluster,
// and among themselves nearest first.
package nearestfirst
