// Package carbonsim is the simulator's built-in carbon scenario: a real
// recorded year of hourly grid intensities (package offline) replayed against
// a job trace generated from a seed, with carbon-agnostic and carbon-aware
// policies side by side and a perfect-knowledge oracle to measure them
// against.
//
// It lives under internal/sim because it is an evaluation, not part of the
// product: it decides nothing itself where the product decides. The regions
// and their grid zones come from the default policy bundle, each job's
// eligible regions from the policy engine (policy.Engine.VM, the webhook's
// call), Meridian's decisions from carbon.Planner.Schedule fed by a
// carbon.Refresher reading the product's forecaster (forecast.Source over the
// offline data, on a virtual clock, so a decision sees only the hours before
// it), and the emissions of every run from carbon.Intensities.Integral with
// carbon.DefaultEnergyModel, the scheduler's own integral and energy model.
// It is a package of its own, not a scenario of package sim, because the
// carbon problem is regions and hours with declared capacities, not nodes and
// pods: the node-by-node engine would add nothing but time.
//
// # The scenario
//
// The regions are every region of the default policy data whose grid zone
// has a recorded year of hourly intensities. Jobs arrive over the year
// (uniformly, at whole minutes), each with an origin region, a size, a
// duration drawn log-uniformly from 10 minutes to 3 days, a deadline with
// 0 to 48 hours of slack, and sometimes a latency limit from the origin or
// an EU residency requirement, which the policies turn into candidates.
// Every region declares a capacity: Headroom times the peak load the
// carbon-agnostic policy puts on it (never less than the largest job that
// may run there), so running every job at once at its origin fits, and
// moving work to green regions is bounded.
//
// # Policies
//
//   - carbon-agnostic: the origin, at once (the counterfactual of every
//     plan);
//   - round-robin: the job's candidates in turn, at once, skipping full
//     regions;
//   - temporal-only: the product's scheduler with the origin as the only
//     candidate;
//   - spatial-only: the product's scheduler without the deadline, which it
//     reads as "start now";
//   - meridian: the product's scheduler on forecasts;
//   - meridian-perfect: the same on the actual intensities, so that the
//     difference is the regret due to forecast error;
//   - oracle: see Oracle.
//
// Every policy but the oracle decides the jobs one by one in arrival order,
// as the admission webhook does, each decision seeing the plans before it.
package carbonsim
