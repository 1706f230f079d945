// Package selection decides which propagation policy places each resource
// template: the objects every policy's selectors select, and, when several
// policies select one object, the one that wins it.
//
// The order is Karmada's, so that its policies keep their meaning: a
// PropagationPolicy wins over a ClusterPropagationPolicy; between policies
// of one kind the higher priority wins, then the more specific selector
// (name over labelSelector over kind alone), then the first by name. It
// decides and does nothing: the propagation policy controller lists the
// policies and objects, calls Select, and writes the ResourcePlacements
// and the policies' status.
package selection
