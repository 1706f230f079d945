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
package multiclusterhpa
