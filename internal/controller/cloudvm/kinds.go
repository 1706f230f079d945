package cloudvm

import "k8s.io/apimachinery/pkg/runtime/schema"

// ProviderKinds are the kinds internal/vmrender renders, for every
// provider. The controller watches those whose CRDs are installed when it
// starts; the RBAC markers on Reconcile grant the same.
var ProviderKinds = []schema.GroupKind{
	{Group: "resources.azure.com", Kind: "ResourceGroup"},
	{Group: "network.azure.com", Kind: "VirtualNetwork"},
	{Group: "network.azure.com", Kind: "VirtualNetworksSubnet"},
	{Group: "network.azure.com", Kind: "NetworkInterface"},
	{Group: "compute.azure.com", Kind: "VirtualMachine"},
	{Group: "compute.cnrm.cloud.google.com", Kind: "ComputeNetwork"},
	{Group: "compute.cnrm.cloud.google.com", Kind: "ComputeSubnetwork"},
	{Group: "compute.cnrm.cloud.google.com", Kind: "ComputeInstance"},
	{Group: "ec2.services.k8s.aws", Kind: "VPC"},
	{Group: "ec2.services.k8s.aws", Kind: "Subnet"},
	{Group: "ec2.services.k8s.aws", Kind: "Instance"},
}
