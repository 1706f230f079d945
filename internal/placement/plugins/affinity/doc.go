// Package affinity is the score plugin of seed 001's cluster-affinity
// policy: it ranks the workload's preferred locations in the order the user
// listed them, above every other cluster.
package affinity
