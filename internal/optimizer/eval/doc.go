// Package eval measures the price/performance optimizer in simulation: a
// web application whose latency follows an M/M/c queue under a diurnal load
// with bursts, scaled side by side by the seed's rule, Meridian's optimizer,
// the CPU-utilisation HPA (internal/autoscale's decision) and a hindsight
// oracle.
//
// # Model
//
// Each replica serves one request at a time at ServiceRate requests per
// second (exponential service times); arrivals are Poisson at the load's
// rate; the load balancer keeps one queue. The mean latency is then the
// M/M/c response time W = C(c, λ/μ)/(cμ - λ) + 1/μ, where C is Erlang's
// C formula, capped at a timeout when λ ≥ cμ. Every interval each policy
// observes the metrics the seed's policy keeper collects (average and total
// request rate, CPU utilisation) and the latency, all with relative noise,
// and sets the replica count for the next interval; new replicas serve from
// the next interval on.
//
// # Policies
//
//   - seed: the optimizer with RuleSeed (production after 300 samples,
//     reliability the in-sample correlation, no advice in training); during
//     training replicas sweep from the minimum to the maximum and back, as
//     the seed's evaluation did by hand (section 7.5.3).
//   - meridian: the optimizer with RuleMeridian (held-out error, bounded
//     exploration during training).
//   - hpa: internal/autoscale's Autoscaler with a CPU target.
//   - oracle: with hindsight of the noiseless model, the fewest replicas
//     whose latency is at most the band's maximum in every interval.
//
// Replica-hours are the sum of replicas times the interval; the cost prices
// them cheapest cluster first (optimizer.Place).
package eval
