// Package v1alpha1 holds the API of Meridian's resource sharing between
// clusters (seed 002) in the sharing.meridian.dev group.
//
// A provider cluster lends spare capacity to consumer clusters. Every kind
// here is a message one agent writes into the other's API server, or the
// state an agent keeps about its peers:
//
//   - Peer: a cluster this one shares with, how to reach it (the API server
//     and a Secret holding the credentials), the identity it authenticates
//     as, what may be advertised to it, and the state of the peering.
//   - Advertisement: written by a provider into a consumer, the capacity the
//     provider can spare for that consumer, grouped by node shape, with its
//     prices, images, timestamp and time-to-live. The consumer writes its
//     accept or refuse decision and the reason into the status.
//   - Reservation: kept by a provider, the node slices it holds for one
//     consumer after an Advertisement or an Offer was accepted, so that the
//     same capacity is never promised to two consumers.
//   - Quote, Offer, Acknowledgement and Release: the ad-hoc auction. A
//     consumer whose pending pods fit no accepted Advertisement sends a Quote
//     with its components' requests and a deadline; providers answer with an
//     Offer (interest and price per component, an expiry); the consumer
//     acknowledges the offer it picks, and releases it when done.
//
// Availability is per node shape, never a cluster total: a virtual node the
// consumer builds from a shape accepts only pods that fit one provider node
// (see docs/design/20261124-sharing-api.md).
//
// +kubebuilder:object:generate=true
// +groupName=sharing.meridian.dev
package v1alpha1
