// Package overrides changes a member object for the cluster it is written
// to, by a propagation policy's override rules: the image (registry,
// repository, tag), env and args of the pod template's containers, the
// labels and annotations, and an RFC 6902 JSON patch for anything else.
//
// Apply is a pure function of the object, the cluster and the rules; the
// ResourcePlacement controller calls it for each member object it writes
// and keeps the member's object as it was when a rule does not apply.
package overrides
