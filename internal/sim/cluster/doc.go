// Package cluster models one member cluster node by node, with a pod
// scheduler that behaves like kube-scheduler's default profile for the
// resources the simulator tracks.
//
// A pod is bound to the node that fits it (free CPU, memory and pod slots,
// the NodeResourcesFit filter) with the highest score of the cluster's
// scoring strategy, ties going to the first node so that runs are
// reproducible (kube-scheduler picks at random among ties). Member clusters
// score LeastAllocated, kube-scheduler's default, which spreads pods; a
// cloud cluster scores MostAllocated, as the CloudProvisioner configures its
// kube-scheduler (GKE's optimize-utilization profile), which packs pods so
// that nodes empty out and consolidation can remove them. A pod that fits no node stays Pending in the
// cluster's queue and is retried, oldest first, whenever a pod leaves or a
// node joins, as kube-scheduler moves unschedulable pods back to its active
// queue on such cluster events. A bound pod counts as Running: the simulator
// does not model image pulls or container start-up.
package cluster
