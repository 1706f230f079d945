// Package broker is Meridian's advertisement broker (meridian broker, seed
// 002 section 4.3): clusters that do not know each other share capacity
// through one broker. Its state lives in the broker's own Kubernetes API
// server, as the objects below, so a broker that restarts carries on where
// it stopped and loses nothing.
//
// Identity. The broker's administrator onboards each member (Onboard): a
// namespace labelled with the member's cluster ID
// (sharing.meridian.dev/broker-member), a service account there, and a
// Role that lets that account write sharing messages into that namespace
// only. The API server authenticates the member (its service account
// token) and RBAC confines it to its namespace, so the broker attributes
// everything in the namespace to the cluster its label names and refuses a
// message that claims another cluster ID; it never trusts a claim.
//
// Registration. The member writes a Peer named after itself into its
// namespace (Register): its role as the broker sees it (Provider: it lends
// through the broker; Consumer: it borrows; Both), region, API server, and
// a credentials Secret with a kubeconfig the broker writes into it with.
// admit decides it (pure) and the registration reconciler writes Ready.
//
// Advertisement table. A provider's agent has a Peer for the broker with
// role Consumer (and spec.broker): its broadcaster writes its Advertisement
// into its namespace at the broker, as into any consumer, so the capacity
// is held for the broker and never promised to another consumer too. The
// table reconciler decides each one with the precheck a consumer's agent
// uses (sharing.Precheck: sender, claimed cluster ID, receiver, validity,
// time-to-live) and writes Listed
// or the reason it is refused into its status; the provider reads it back
// as it reads a consumer's decision.
//
// Queries. A consumer writes a CapacityQuery (a pod's requests, node
// selector, region, maximum price) into its namespace; match (pure) lists
// the advertised shapes one node of which runs the whole pod, cheapest
// first, priced as the provider prices an offer (sharing.PriceOf).
//
// Auctions. A consumer whose Peer for the broker has spec.broker and role
// Provider or Both sends its Quote to the broker instead of to providers.
// The auction reconciler forwards it to every registered provider (into
// the namespace each provider mapped to the broker, as a consumer would),
// collects the Offers they write back into their namespaces until the
// deadline, closes the auction with sharing.CloseAuction (the rule a
// consumer's agent closes its own by: a recorded pick stands, else the
// cheapest that fits), records every verdict on its Offer's Selected
// condition before acting on it, and acknowledges: the winner confirmed,
// the others declined. Each provider
// reserves as in a direct auction (its Reservation names the broker as
// consumer, the forwarded Quote names the real one in the label
// sharing.meridian.dev/on-behalf-of). Once the winner confirms, the
// broker hands the winning offer over into the consumer's namespace (a
// copy named after the consumer's Quote, which the consumer may read and
// the provider's namespace it may not), then the Quote's status at the
// broker carries the result, which the consumer's agent copies; a consumer
// that also peers directly with the winner makes the auction's virtual
// nodes from the handed-over offer (virtualnode.Brokered).
//
// Releases. The consumer frees a won offer before its expiry by writing a
// Release of the handed-over copy into its namespace at the broker (it may
// not write into the provider); its agent does so when the won auction is
// deleted. routeRelease (pure) finds the provider's
// offer from the copy's annotation; the release reconciler forwards the
// Release into the provider's namespace for the broker, from the broker
// (its Reservation's consumer), waits for the provider's answer, ends the
// copy at the release time (so the consumer's virtual nodes go) and
// reports the answer in the consumer's Release.
//
// Every step is a create that tolerates AlreadyExists or a decision read
// back from what was recorded, so a broker killed at any point and
// restarted sends nothing twice and forgets nothing.
//
// The broker shares the agent's rules through package sharing and reaches
// its members through package remote; it imports no code of the agent. The
// tests that run agents beside a broker are in package brokered.
package broker
