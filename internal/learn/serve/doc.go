// Package serve turns a cluster's Kubernetes objects and a Prometheus
// server's measurements into the learned scorer's inputs (learn.PodState,
// learn.NodeState), for both ways of serving the model to kube-scheduler:
// the scheduler extender of `meridian suggest` (package serve/extender) and
// the Score plugin compiled into an out-of-tree kube-scheduler
// (hack/k8s/scheduler). Both read the same annotations, the same power table and
// the same Prometheus queries, so a pod is scored alike either way.
//
// A pod states its latency limits in annotations (AnnotationSoftLatency,
// AnnotationHardLatency, in milliseconds). A node's latency to the users is
// what the cluster's API lacks: it comes from Prometheus (Metrics), and a
// node without a sample counts as UnknownLatencyMs away. A node's idle and
// peak watts come, in this order, from Prometheus when queries are
// configured, from the node's annotations, from its instance type among
// nodeenv.NodeTypes, and else from the middle type (cascadelake-32) scaled
// to the node's allocatable vCPUs.
package serve
