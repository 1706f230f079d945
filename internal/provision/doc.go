// Package provision decides the life of cloud clusters: when to provision
// one, with how many nodes of which flavors, when to add nodes to which node
// pool, which nodes to consolidate away (and drain first), which broken
// nodes to remove, and when to remove the cluster. It
// is seed 001's cloud provisioner and cluster autoscaler (Algorithm 4) as
// pure decision logic, with Karpenter's instance-type selection and
// consolidation, shared by the CloudProvisioner controller and the
// simulator. Observe is the one place that turns what either of them read
// (workloads, member nodes, cloud nodes) into an Observation.
//
// # Node pools and the cheapest mix
//
// A cloud cluster has one node pool per flavor (name, CPU, memory, pods,
// price per hour). For the replicas that fit nowhere, the provisioner packs
// them first-fit decreasing into the free space of the cloud nodes, ready or
// coming, and chooses for the rest the cheapest mix of new nodes it finds:
// one mix per flavor and a greedy one that opens each node with the flavor
// of the lowest price for what it would hold. A node is only opened with a
// flavor that holds the largest replica it is opened for, so a replica is
// never given a flavor too small for it while a larger one exists, and each
// node is then shrunk to the cheapest flavor that holds what it got.
// Replicas larger than every flavor are reported, never provisioned for.
//
// # Reactive and predictive
//
// Algorithm 4 is reactive: it provisions when a workload is already Pending.
// Cloud capacity is not instant (Cluster API on OpenStack takes minutes for a
// cluster and for each added node), so a reactive provisioner leaves replicas
// Pending for at least that long whenever the member clusters fill up. The
// Reactive mode (the CloudProvisioner's default) provisions only for what
// is unschedulable; the Predictive mode also provisions ahead of need,
// sized to what the forecast says will not fit rather than to the whole
// demand:
//
//   - It keeps a history of the demand (the requests of every replica asked
//     for, placed or not) and fits a least-squares line over the trend
//     window, once the history spans half the window.
//   - Only the rise is forecast: the replicas asked for now are placed, or
//     unschedulable, already. The rise at now + lead time (what new capacity
//     takes to arrive, plus three quarters of a period) is read as the
//     decision needs it (reach): nodes follow the lower of the window's
//     slope and its last half's; buying a cluster follows the window's, and
//     it and keeping an idle cluster add half a standard deviation of the
//     demand around the line while the line rises. The rise is cut into
//     replicas of the mean size asked for, divided by the target utilization
//     for fragmentation and forecast error, plus one replica of the largest
//     size asked for in the window, so that a large replica arriving finds
//     room.
//   - Those replicas are packed into the free space of the member clusters'
//     nodes and the cloud nodes; only those that fit nowhere buy nodes.
//     A falling trend is taken as flat, so capacity is released by
//     consolidation, not by the forecast.
//   - While the cloud cluster is being provisioned, nodes the forecast
//     needs beyond those asked for are added to its pools: they join with
//     it, not a node's delay after it is ready.
//
// # Node conditions
//
// A cloud node is Ready (its free room counts), Coming (asked for and not
// registered, or registered and never Ready within the join grace: its
// room counts as coming, and nothing is consolidated meanwhile), Cordoned
// (drained, or cordoned by someone: neither room nor coming, left alone)
// or NotReady (broken: no room; removed once it stayed so for the
// not-ready grace, and replaced when what it held fits nowhere else).
// A node of a flavor no longer configured is retired: room is bought for
// its pods, then it is drained and removed.
//
// # Consolidation and de-provisioning
//
// As Karpenter consolidates, a Ready cloud node whose pods fit on the other
// Ready cloud nodes, whose requests are below the scale-down utilization
// (an empty node always qualifies; in predictive mode, any node once the
// forecast expects no rise), and whose room the predictive forecast does
// not need, is a candidate. Nothing goes while nodes are coming (they
// were bought for pods that will take the room the candidates show). In
// reactive mode a candidate goes once it has stayed so for the scale-down
// delay, Algorithm 4's only guard against the demand coming back. In
// predictive mode the forecast over the node delay is that guard, so a
// candidate goes after the node delay (at most the scale-down delay): kept
// longer, an unneeded node costs more than buying it again would. The
// cloud cluster's kube-scheduler packs (MostAllocated), so that nodes empty
// out. Empty nodes go together (Decision.Remove); a node with pods is
// drained first (Decision.Drain), one at a time, while the others keep
// their wait. NextDrainStep is the drain's rule for the controller, which
// evicts through the Eviction API so that PodDisruptionBudgets hold, and
// for the simulator alike. The cluster keeps at least MinNodes usable
// nodes, padded with the cheapest flavor; when it runs no workload for the
// de-provisioning delay, it is removed (Algorithm 4's "remove cloud
// cluster").
package provision
