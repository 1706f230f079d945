// Package multiclusterhpa reconciles MultiClusterHorizontalPodAutoscalers:
// every interval it reads the CPU usage of the target's pods from the
// resource metrics API (metrics.k8s.io, as metrics-server serves it) of
// every member they run in, computes the desired replicas as seed 001's
// Algorithm 3 and Kubernetes' HPA do (tolerance, unready pods counted idle
// when scaling up, scale-up limit, min and max), holds scale-downs for the
// cool-down, and scales the MultiClusterDeployment through its scale
// subresource. The placement controller then places the new replicas, so
// bursting to further clusters follows from the placement policy.
//
// Missing metrics are a condition (ScalingActive False), never a scale to
// zero or a crash. The cool-down survives restarts: a restarted controller
// treats the current count as recommended now, so it never scales down
// sooner than one cool-down after it starts.
//
// With spec.optimizer set (seed 004 wired to real scaling) every interval
// also evaluates the optimizer's PromQL queries against Prometheus, adds the
// sample to an in-process optimizer.Optimizer of the autoscaler, whose
// knowledge base is kept in a ConfigMap it owns so a restart resumes where
// it stopped, and asks it for advice; autoscale.Choose then picks the
// advice once the optimizer is in production and the CPU target before
// that. A failed query is a condition (OptimizerSampled False) and leaves
// the choice to the CPU target.
package multiclusterhpa
