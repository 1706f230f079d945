// Package sharing holds the decisions of Meridian's resource sharing
// between clusters (seed 002) as pure functions: they read what the agent
// observed and the time it passes in, do no I/O, and return a plan. The
// agent calls them between reading and writing; tests and the simulator
// call the same functions.
//
// Provider side:
//
//   - Spare computes what each node can spare (allocatable minus the
//     requests of its pods) and Shapes groups nodes by what they can spare,
//     rounded down to a step so that similar nodes share a shape.
//   - A Ledger records, per node, the slices of spare capacity offered or
//     reserved for each consumer. Advertise takes a destination's outgoing
//     policy (share, prices, whether it is allowed at all) and carves its
//     slices only out of what no other consumer holds, so the same capacity
//     is never promised to two consumers; Accept turns an offer into a
//     reservation, Release and Expire free it.
//
// Consumer side:
//
//   - Slice turns the accepted shapes of an Advertisement into virtual
//     node specifications, one per provider node unit, each with allocatable
//     no larger than what one provider node can spare: any set of pods the
//     consumer's scheduler binds to one virtual node fits one provider node
//     (never one node for a whole peer: Liqo #2712, #1768).
//   - Expired and ExpiresAt apply an Advertisement's time-to-live.
//   - SelectOffer picks the cheapest offer that covers a quote, breaking
//     ties by latency, ignoring offers that expired or arrived late.
//
// Validate and Decode check messages as the API server's schema does, with
// errors that name the field, for messages that do not come through an API
// server (the broker, tests, the fuzz target).
package sharing
