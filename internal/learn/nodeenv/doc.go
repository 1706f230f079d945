// Package nodeenv is the simulated cluster the learned scorer trains and is
// evaluated in: one member cluster modelled node by node with
// internal/sim/cluster's nodes, pods that arrive and leave by
// internal/sim/workload's trace generator or by seed 003's two load
// patterns, a power model per node type, and a latency from every node to
// the users that moves over time.
//
// A policy (the model, or kube-scheduler's LeastAllocated, MostAllocated
// and BalancedAllocation scoring) chooses a node for every pod among the
// feasible ones: the pod fits (CPU, memory, pod slots) and the node is within
// the pod's hard latency limit. The mask is the scheduler's filter, the same
// for every policy. A pod no node can take waits Pending and is retried,
// oldest first, when a pod leaves.
//
// Rewards are written from physical quantities after each placement (see
// Reward): the rise in cluster power the placement causes (EE), the rise in
// the standard deviation of the nodes' CPU allocation (LB), and for EL-RL the
// power rise plus a penalty when the node is beyond the pod's soft latency
// limit (the hard limit is the mask).
package nodeenv
