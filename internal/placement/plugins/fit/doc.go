// Package fit is the filter plugin that rules out member clusters where not
// even one replica of the workload fits on any node, and says why in a
// sentence: how many nodes the cluster has, which are unusable (cordoned,
// untolerated taints), and what the largest free amounts are.
//
// The filter only asks whether one replica fits; the framework counts how
// many fit (placement.ClusterInfo.FitCount) for the clusters that pass. A
// cluster where the workload already runs always passes, so that a full
// cluster keeps the replicas it holds.
package fit
