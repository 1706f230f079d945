// Package agent is Meridian's sharing agent (seed 002, ch. 4-7): the
// controllers that run in a member cluster and trade spare capacity with its
// peers through their Kubernetes API servers (reached with package remote).
// Every decision is a pure function of package sharing or of this package
// (cadence, policyInput, quoteFor, planOffer); the reconcilers only observe,
// call them and write what they return. What the broker decides too
// (closing an auction, pricing, judging an advertisement) is in package
// sharing, never here: the broker does not import this package.
//
// One package rather than one per concern, because the provider's three
// writers (the broadcaster, the quote answerer and the acknowledgement
// handler) must share one ledger behind one lock: the Book. Were they in
// separate packages, the Book would be an exported type used by all of them
// and the lock's invariant (no hold changes without its Reservation being
// written under the same lock) would span packages.
//
// Provider side:
//
//   - Broadcaster (broadcast.go) reconciles each consumer Peer: it computes
//     spare capacity (sharing.Spare), carves this consumer's slice out of
//     what no other consumer holds (Ledger.Advertise), and writes an
//     Advertisement named after this cluster into the consumer's cluster,
//     Full every FullInterval, Partial every PartialInterval and as soon as
//     availability moves by ChangeFraction. It reads the consumer's
//     decision back: Accepted turns the hold into a reservation; Refused
//     withdraws the advertisement (rewrites it empty) and then frees the
//     hold, and the consumer is offered again on the timers only. Every
//     write into a consumer happens under the ledger's lock, so no two
//     advertisements ever show the same capacity.
//   - The Book (book.go) is the ledger, rebuilt from the Reservations at
//     first use and written back as Reservations after every change, under
//     one lock, so that two consumers are never promised the same capacity,
//     also across a restart. The reservation reconciler expires holds whose
//     time-to-live passed and says in each Reservation's Held condition
//     whether its slices still fit their nodes.
//   - Quotes from consumers get an Offer (auction_provider.go) when the
//     cluster can host every replica; the capacity is held (Ledger.Offer)
//     until the offer expires, turned into a reservation by a confirming
//     Acknowledgement and freed by a declining one or a Release.
//
// Consumer side:
//
//   - The incoming reconciler (incoming.go) decides every Advertisement:
//     the sender is the Peer whose namespace holds it (only that peer's
//     service account may write there), never the cluster ID it claims; it
//     is prechecked (sharing.Precheck: validity, expiry) and judged by the
//     Rego package meridian.sharing.incoming; status says Accepted or
//     Refused, why, and which shapes.
//   - Pending pods that fit no accepted shape start an auction
//     (auction_consumer.go): a Quote kept in the agent's namespace is sent
//     to every provider peer, offers are collected until its deadline, and
//     sharing.CloseAuction closes it: the cheapest that fits wins unless a
//     decision is already recorded on the Offers, which stands. Every
//     verdict is recorded on its Offer's Selected condition before any is
//     acknowledged (the winner confirmed, the others declined), so an agent
//     restarted in the middle of a close confirms the same winner.
//
// Both sides: the peer status reconciler (peer_status.go) probes each
// Peer's API server with its credentials and writes Ready, the phase, the
// last time it answered and the latency (auction ties, virtual nodes'
// readiness). SetupVirtualNodes serves every provider Peer with package
// virtualnode (virtual nodes of accepted advertisements and of won
// auctions, pod reflection), starting and stopping it as Peers come, change
// and go, without a restart (virtualnodes.go).
//
// Where this cluster writes in a peer is the namespace of the kubeconfig
// in the Peer's credentials Secret: the least-privilege service account the
// peer made for this cluster is bound to that namespace only.
package agent
