// Package cluster models one member cluster node by node, with a pod
// scheduler that behaves like kube-scheduler's default profile for the
// resources the simulator tracks.
//
// A pod is bound to the node that fits it (free CPU, memory and pod slots,
// the NodeResourcesFit filter) with the highest LeastAllocated score, ties
// going to the first node so that runs are reproducible (kube-scheduler picks
// at random among ties). A pod that fits no node stays Pending in the
// cluster's queue and is retried, oldest first, whenever a pod leaves or a
// node joins, as kube-scheduler moves unschedulable pods back to its active
// queue on such cluster events. A bound pod counts as Running: the simulator
// does not model image pulls or container start-up.
package cluster
