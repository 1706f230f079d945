package v1alpha1

// Labels and taints the sharing agent puts on the objects it makes.
const (
	// LabelProvider is on every virtual node and every pod twin, with the
	// provider's (virtual node) or the consumer's (twin) cluster ID.
	LabelProvider = "sharing.meridian.dev/provider"
	// LabelConsumer is on every pod twin in the provider, with the
	// consumer's cluster ID; the provider counts such pods as part of that
	// consumer's reservation, not as its own load.
	LabelConsumer = "sharing.meridian.dev/consumer"
	// LabelShape is on every virtual node, with the advertised shape's name.
	LabelShape = "sharing.meridian.dev/shape"
	// LabelAdvertisement is on every virtual node, with the name of the
	// Advertisement it was made from.
	LabelAdvertisement = "sharing.meridian.dev/advertisement"
	// LabelVirtualNode marks a virtual node ("true"); a provider never
	// counts such nodes as its own capacity, so capacity is never
	// re-advertised.
	LabelVirtualNode = "sharing.meridian.dev/virtual-node"
	// LabelPricePrefix, followed by a resource name, is on every virtual
	// node with that resource's price per unit per hour, e.g.
	// "sharing.meridian.dev/price-cpu=0.031".
	LabelPricePrefix = "sharing.meridian.dev/price-"
	// LabelCurrency is on every virtual node that has prices.
	LabelCurrency = "sharing.meridian.dev/currency"

	// LabelBrokerMember is on every namespace of a broker's API server that
	// a member cluster writes into, with that member's cluster ID. Only the
	// broker's administrator sets it (meridian broker onboard); the broker
	// attributes everything in the namespace to that cluster, never to the
	// cluster ID a message claims.
	LabelBrokerMember = "sharing.meridian.dev/broker-member"
	// AnnotationBrokerIdentity is on every broker member namespace, with
	// the username the member authenticates as (its service account).
	AnnotationBrokerIdentity = "sharing.meridian.dev/broker-identity"
	// LabelOnBehalfOf is on every Quote a broker forwards to a provider,
	// with the cluster ID of the consumer whose auction it is.
	LabelOnBehalfOf = "sharing.meridian.dev/on-behalf-of"

	// TaintVirtualNode keeps pods off virtual nodes unless they tolerate
	// it: workloads opt into running in another cluster.
	TaintVirtualNode = "sharing.meridian.dev/virtual-node"
)
