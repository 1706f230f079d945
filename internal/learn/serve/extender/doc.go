// Package extender serves the learned scorer to a kube-scheduler that
// cannot be replaced, as a scheduler extender (`meridian suggest`): the
// documented JSON of k8s.io/kube-scheduler/extender/v1 over HTTP, with
// nodeCacheCapable, so a request carries node names only.
//
// The extender keeps its own node cache (Cache) from the cluster's API
// through informers on nodes and on pods bound to nodes, and reads the
// nodes' latency to the users from Prometheus (serve.Metrics). Prioritize
// scores every cached node, since the model's pooled summary is over the
// whole cluster as in training, and answers for the nodes asked about,
// the best feasible one getting extenderv1.MaxExtenderPriority. Filter
// removes the nodes beyond the pod's hard latency limit; kube-scheduler's
// own filters have decided the rest before the extender is called.
package extender
