// Package autoscale decides how many replicas a multi-cluster deployment
// wants: seed 001's multi-cluster HPA (Algorithm 3) computed the way
// Kubernetes' HorizontalPodAutoscaler computes it, so that a user who knows
// one knows the other.
//
// For a CPU utilization target θ and the average utilization u of the ready
// replicas, the desired count is ceil(ready × u / θ), as in Algorithm 3.
// Where Algorithm 3 is silent this package does what the HPA does:
//
//   - Tolerance: a ratio u/θ within 1 ± tolerance (0.1 by default) keeps the
//     current count, so noise does not move replicas.
//   - Replicas not ready yet (Pending, starting) count as using nothing when
//     scaling up, so a burst of Pending replicas does not feed on itself.
//   - Scale-up is limited per decision to max(2 × current, current + 4), the
//     HPA's default scale-up policy.
//   - The result is clamped to [min, max].
//   - Scale-down is stabilized over the cool-down (Algorithm 3's "wait for
//     cool down period", 10 minutes in seed 001): the autoscaler scales down
//     only to the highest count it recommended during the cool-down window,
//     which is the HPA's scale-down stabilization window. A brief dip does
//     not remove replicas; a sustained one does, one window later.
//
// Choose is the optimizer mode's rule (seed 004 wired to real scaling): the
// price/performance optimizer's advice once it is in production and valid,
// the CPU target above before that or when the advice is invalid, the
// optimizer's own bounded exploration while it trains without a CPU target,
// and the count as it is when nothing usable was observed; always within
// [min, max].
//
// The package is pure: it reads no metrics and changes no object. The
// multi-cluster HPA controller and the simulator both feed it observations.
package autoscale
