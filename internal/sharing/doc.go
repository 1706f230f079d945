// Package sharing holds the decisions of Meridian's resource sharing
// between clusters (seed 002) as pure functions: they read what was
// observed and the time passed in, do no I/O, and return a plan. The
// sharing agent (package agent) and the broker (package broker) call them
// between reading and writing, and the tests call the same functions;
// whatever the agent and the broker both decide lives here, so that
// neither imports or copies the other. The simulator (internal/sim) does
// not model sharing: no simulated figure comes from this package.
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
//   - PriceOf is what pods cost per hour under a provider's prices: the
//     price of an offer, and of a pod the broker lists.
//
// Receiving side (a consumer's agent, or the broker's table):
//
//   - Precheck judges what needs no policy (sender, claimed cluster ID,
//     receiver, validity, time-to-live); PricesOf and KeepFullPrices keep a
//     Full advertisement's prices for the Partial ones after it;
//     Judgement.Record writes the decision as the sender reads it back.
//   - Slice turns the accepted shapes of an Advertisement into virtual
//     node specifications, one per provider node unit, each with allocatable
//     no larger than what one provider node can spare: any set of pods the
//     consumer's scheduler binds to one virtual node fits one provider node
//     (never one node for a whole peer: Liqo #2712, #1768).
//   - Expired and ExpiresAt apply an Advertisement's time-to-live.
//
// Auctions:
//
//   - SelectOffer picks the cheapest offer that covers a quote, breaking
//     ties by latency, ignoring offers that expired or arrived late.
//   - CloseAuction is how every auction closes, a consumer's own or one
//     the broker runs: a decision already recorded on the Offers' Selected
//     conditions stands (a closer restarted after it acknowledged some bids
//     confirms no second winner), else SelectOffer picks. The closer
//     records every Verdict before it acknowledges any.
//
// Money is exact (internal/money, used by money.go): prices become
// amounts per hour (PerHour; a day is 24 hours, a month 730) and the API's
// Money again only through HourlyMoney, rounded to a millionth. Prices of
// different currencies are never compared: an auction whose quote names
// no currency rejects fitting offers in more than one, naming the quote's
// spec.currency.
//
// Validate and Decode check messages as the API server's schema does, with
// errors that name the field, for messages that do not come through an API
// server (the broker, tests, the fuzz target).
package sharing
