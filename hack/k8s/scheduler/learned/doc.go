// Package learned is a kube-scheduler plugin that scores nodes with
// Meridian's learned model (internal/learn) in-process, on the scheduler's
// own node snapshot.
//
// PreScore encodes every node of the snapshot (the model's pooled summary
// is over all of them, as in training), runs the model once, maps the
// Q-values of the nodes that passed filtering onto [0, 100] and keeps them
// in the CycleState; Score only looks its node's score up. Filter enforces
// the pod's hard latency limit (serve.AnnotationHardLatency) with the
// latencies read from Prometheus, so a node beyond it is never chosen,
// whatever the scores. Nodes' latency to the users, and the features the
// node objects lack, come from a real Prometheus through serve.Metrics,
// refreshed in the background: scoring never waits for it.
package learned
