// Package trafficaware is the score plugin of seed 001's traffic-aware
// policy: the cluster that receives the most traffic for the workload (for
// example requests per second at its front end, Snapshot.Traffic) ranks
// first, so that replicas follow their users.
package trafficaware
