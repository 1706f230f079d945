// Package v1alpha1 holds the API of Meridian's policy-driven, carbon-aware
// cloud VMs (seed 000) in the compute.meridian.dev group.
//
// A CloudVM asks for a virtual machine by its needs: size, how long it runs,
// when it must have finished, how far it may be from its users and where its
// data may live. The admission webhook runs the policies and the carbon
// scheduler and writes their decision (provider, region, grid zone, instance
// size, start and end) into spec.schedule; the CloudVM controller creates the
// provider's objects (Azure Service Operator, Config Connector or ACK) at the
// start and deletes them at the end.
//
// The kind is CloudVM, not VirtualMachine, so it never clashes with
// KubeVirt's or a provider operator's kind of that name.
//
// +kubebuilder:object:generate=true
// +groupName=compute.meridian.dev
package v1alpha1
