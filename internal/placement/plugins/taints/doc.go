// Package taints is the filter plugin that keeps workloads off member
// clusters whose cluster-level taints they do not tolerate, with the same
// matching rules as Kubernetes node taints (NoSchedule and NoExecute rule a
// cluster out; PreferNoSchedule does not).
package taints
