// Package provision decides the life of cloud clusters: when to provision
// one, with how many nodes of which flavor, when to add nodes, when to
// remove them and when to remove the cluster. It is seed 001's cloud
// provisioner and cluster autoscaler (Algorithm 4) as pure decision logic,
// shared by the provisioner controller and the simulator.
//
// # Reactive and predictive
//
// Algorithm 4 is reactive: it provisions when a workload is already Pending.
// Cloud capacity is not instant (Cluster API on OpenStack takes minutes for a
// cluster and for each added node), so a reactive provisioner leaves replicas
// Pending for at least that long whenever the member clusters fill up. The
// Reactive mode reproduces Algorithm 4 for comparison; the Predictive mode,
// Meridian's default, also provisions ahead of need:
//
//   - It keeps a history of the demand (the requests of every replica asked
//     for, placed or not) and fits a least-squares line over the trend
//     window.
//   - It forecasts the demand at now + lead time, where the lead time is what
//     new capacity takes to arrive (cluster delay plus node delay when there
//     is no cloud cluster, node delay when there is) plus one control period.
//     Only a rising trend is extrapolated; a falling one is taken as flat, so
//     capacity is released by the scale-down rules, not by the forecast.
//   - It wants capacity of forecast / target utilization: the headroom
//     absorbs fragmentation (a cluster never fills to 100% with pods of
//     mixed sizes) and forecast error.
//   - Whatever is still unschedulable now is bin-packed (first-fit
//     decreasing) into the free space of the cloud nodes, ready or coming,
//     and into new nodes: Algorithm 4's "calculate number and size of
//     additional nodes".
//
// Both rules run in both modes' order: the larger need wins.
//
// # Flavors
//
// A cloud cluster has one flavor (one machine deployment); the flavor is
// chosen when the cluster is provisioned as the one with the lowest price
// for the capacity needed among those that fit the largest pod seen.
//
// # Scale-down and de-provisioning
//
// As the Kubernetes cluster autoscaler does, a node is unneeded when its
// requests are below the scale-down utilization threshold (50% by default)
// and its pods fit on the other nodes of the cluster; an unneeded node is
// removed after it stayed unneeded for the scale-down delay. Empty nodes
// are removed together, non-empty ones one per decision. In predictive mode
// a node is never unneeded while the forecast wants its capacity. The
// cluster keeps at least MinNodes nodes; when it runs no workload for the
// de-provisioning delay, it is removed (Algorithm 4's "remove cloud
// cluster").
package provision
