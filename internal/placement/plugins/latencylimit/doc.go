// Package latencylimit is the LatencyLimit filter plugin (issue 12, seed
// 000's latency policy): a workload with a latency limit
// (spec.placement.latencyLimit) goes only to clusters whose round-trip time
// from its origin cluster is within the limit.
package latencylimit
