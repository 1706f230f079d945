// Package placement decides which member clusters run how many replicas of
// a workload. It is the framework that the controllers and the simulator
// share (through the decisions of package decide): a snapshot of the clusters, filter and score
// plugins in the shape of kube-scheduler's framework, an exact replica
// division, reservations for decisions not yet visible, and an explanation
// of every decision. The plugins themselves live in the plugins
// subpackages; plugins.NewFramework builds the default framework.
//
// # Snapshot
//
// A Snapshot (NewSnapshot) is what one decision reads: every cluster with
// its nodes, what each node has free (Allocatable - Requested, never
// negative), totals over the schedulable nodes, the latency matrix and the
// traffic per workload. Everything a decision can precompute once is
// computed there (free amounts, per-node taint and cordon flags, the largest
// free amounts, the busiest cluster per workload), so that many Place calls
// can read one snapshot concurrently without locks or copies.
//
// # Filter
//
// Each profile's filters run in order on every cluster; the first that
// rejects it is recorded with its code and a sentence for people (for
// example "cluster has 3 nodes but none has 2 CPU free (largest free: 1.5
// CPU)"). For every cluster left, the framework counts exactly how many
// replicas fit (ClusterInfo.FitCount): node by node, as kube-scheduler's
// NodeResourcesFit would, so fragmentation counts (ten nodes with one CPU
// free each hold no pod of two CPUs); cordoned nodes, untolerated NoSchedule
// and NoExecute taints, pod slots and extended resources all count. The
// request of a pod comes from PodRequests, which is kube-scheduler's own
// computation (k8s.io/component-helpers/resource).
//
// # Score
//
// Score plugins rank the clusters left; each score is normalized into
// [MinScore, MaxScore], multiplied by the plugin's weight and summed. The
// order in which the division visits clusters is: clusters that are not
// cloud clusters first, then by total score, then by name. Cloud clusters
// are thus always last, whatever their score, and ties never depend on map
// order: the same input gives the same decision.
//
// # Divide
//
// The capacity of a cluster for a workload is the replicas it runs there
// now (Workload.Current) plus the replicas that fit. With NumberOfLocations
// zero, as few clusters as possible are used:
//
//   - Replicas already running in a cluster that passed the filters stay
//     there; a scale-down gives up replicas from the end of the order, so
//     cloud clusters are released first.
//   - Without substitution or bursting, the workload lives in one cluster:
//     the one it runs in, or else the first in order with room for all its
//     replicas, or else the first with room for some, which takes what it
//     holds.
//   - With substitution or bursting, the replicas still to place go, all of
//     them, to one member cluster (not a cloud cluster) with room for them
//     all, one the workload runs in if possible. If none has room, they
//     fill the member clusters in order, those the workload runs in first,
//     each up to its capacity, and only then the cloud clusters: the
//     overflow goes to the next cluster in order, and the cloud comes last.
//
// With NumberOfLocations k, the replicas are spread over k clusters (those
// the workload runs in first, then the next in order) in proportion to
// their capacity, with largest-remainder rounding so the shares add up and
// none exceeds its capacity; what the k clusters cannot hold overflows as
// above. Replicas that fit nowhere are Decision.Unplaced: the cue for the
// cloud provisioner. Replicas are never moved just because a better cluster
// appeared, unless the profile sets Rebalance (the traffic-aware one does,
// so that replicas follow their traffic); a re-scheduler that wants the
// ideal placement asks with Current left empty and compares.
//
// For the cluster-affinity policy, the profile's weights make the order
// "the preferred locations in the order given, then the other clusters
// nearest first by latency from the first preferred location, cloud
// clusters last"; for the other policies it is "by the policy's score,
// nearest first among equals, cloud clusters last".
//
// # Assume
//
// A decision takes effect in a member cluster only when its pods appear
// there. Until then Assumptions holds the replicas a decision added, and
// Snapshot.ApplyAssumptions reserves them node by node, so that two
// decisions back to back cannot both count on the same free capacity. See
// Assumptions for the contract between the caller and the framework.
//
// # Explain
//
// Every Decision carries one ClusterResult per cluster of the snapshot, in
// name order: the filter that rejected it, or how many replicas fit and the
// weighted score of every plugin with their total; and every Assignment
// carries the role the cluster plays (Preferred, Substitute, Burst,
// Selected). Controllers copy these into status and events, so that
// kubectl describe says why a workload runs where it runs.
//
// # Differences from seed 001
//
// Algorithms 1 and 2 of seed 001 (mck8s) are the baseline. Where they are
// ambiguous or wasteful, this package does the exact thing:
//
//   - Capacity. The seed checks replicas x request < available on the
//     cluster's aggregate CPU and memory (line 13 of Algorithm 1, line 11 of
//     Algorithm 2) and request < node size for eligibility (line 2). Here
//     capacity is counted per node from free amounts, with taints, cordons,
//     pod slots and extended resources, so a fragmented cluster is not
//     mistaken for a free one.
//   - Comparison. The seed uses strict <; here a pod fits when its request
//     is at most what is free, as in kube-scheduler.
//   - Partial placement. The seed drops a cluster that cannot hold every
//     replica and looks for a replacement or a cloud cluster. Here, when
//     substitution or bursting is enabled, the cluster takes what it holds
//     and only the overflow moves on; with neither, the first cluster takes
//     what it holds and the rest is Unplaced rather than lost.
//   - One cluster, or k. The seed places the workload "on the selected
//     clusters" without saying how replicas are split among them. Here the
//     replicas go to one cluster when one holds them all, and
//     NumberOfLocations spreads them in proportion to exact capacity.
//   - Cloud. The seed appends a cloud cluster, or provisions one, inside
//     the placement algorithm. Here cloud clusters are ordinary candidates
//     that always come last, and provisioning is left to the provisioner,
//     which reads Unplaced.
//   - Worst-fit and best-fit. The seed sorts by "available CPU and
//     available memory" without saying how the two combine. Here free
//     resources are measured in replicas of the workload: the minimum over
//     the requested resources of total free / request (see package
//     plugins/worstfit).
//   - Traffic-aware. The seed sorts by traffic received; here too, and the
//     clusters without traffic follow nearest first from the busiest one,
//     which is the order of the seed's bursting experiment (Fig. 9:
//     cluster 2, then 1, 4, 3, 5, then the cloud).
//   - Stability and determinism. The seed re-places from scratch and
//     leaves ties to the sort. Here current replicas stay where they are,
//     scale-downs release cloud clusters first, and ties go by name.
//   - Concurrency. The seed has none; here Assumptions reserves decided
//     replicas until the member cluster shows them.
//
// Scores have MaxScore+1 levels, so clusters whose latencies (or free
// resources, or traffic) differ by less than one hundredth of the range tie
// and go by name.
//
// # Cost
//
// Place is linear in the number of nodes of the clusters that pass the
// cheap filters, plus n log n in the number of clusters for the order; it
// allocates the decision and little else (its scratch space is pooled).
// NewSnapshot is linear in nodes and is paid once per snapshot, not per
// decision. BenchmarkPlace measures one Place on a prepared snapshot.
package placement
