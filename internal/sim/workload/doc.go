// Package workload generates the tasks and the load a simulation replays:
// a seeded generator with the statistics of the Google cluster trace, a
// reader and writer for explicit task traces in CSV, and load curves for
// services whose traffic moves between clusters or rises and falls.
//
// # The generator
//
// Seed 001 (section VI-B) replays "a synthetic workload that matches the
// statistical distribution of the Google cluster trace", 1,126 tasks in 60
// minutes. The trace's published analyses (Reiss et al., SoCC 2012) give
// its shape rather than numbers we can copy, so each attribute is drawn from
// a distribution with that shape, and the parameters are set in the
// scenario:
//
//   - Arrivals are a Poisson process conditioned on the number of tasks: the
//     submit times are the order statistics of Tasks uniform draws over the
//     window. The count is exact and the gaps are exponential.
//   - CPU and memory requests are lognormal, truncated to what a node can
//     hold (drawn again when outside [min, max]): most requests are small and
//     a few are large, the heavy right tail of the trace's requests.
//   - Durations are a mixture: short batch tasks (lognormal, a median of
//     seconds to minutes) and long-running services (Pareto, starting at the
//     length of the window), the trace's bimodal, heavy-tailed runtimes.
//   - A task longer than the service threshold (the window by default) is a
//     Deployment that is deleted when its duration has passed since it was
//     submitted; a shorter one is a Job that completes after running for its
//     duration, so a Job that waits Pending finishes late.
//   - Preferred locations follow seed 001 Table III: given counts that add
//     up to the number of tasks are dealt exactly and shuffled; otherwise
//     they are weights of a categorical draw.
//
// Each attribute draws from its own random stream derived from the seed, so
// changing one distribution leaves the others' draws as they were, and the
// same seed always gives the same tasks.
package workload
