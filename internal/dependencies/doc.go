// Package dependencies says which objects a workload's pods need in a
// member cluster (the ConfigMaps, Secrets, ServiceAccount and
// PersistentVolumeClaims its pod template names) and, from where each
// workload's replicas went, which of them every member must hold.
//
// It decides and does nothing: the dependencies controller observes the
// workloads and their placements, calls Of and Plan, and writes the copies
// (propagation.Dependency) into the members. A dependency follows its
// workloads: it goes to exactly the clusters that run one of them, and
// goes from a cluster when the last workload there stops naming it.
package dependencies
