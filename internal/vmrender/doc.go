// Package vmrender turns a CloudVM's decision into the objects a cloud
// provider's Kubernetes operator provisions a VM from: Azure Service
// Operator v2, Google Config Connector or AWS Controllers for Kubernetes.
//
// The objects come from the Helm chart in charts/cloudvm, embedded in the
// binary and rendered offline with the Helm Go SDK's template engine: no
// release, no cluster access and no Helm lookup, so the same Input always
// renders the same objects. The objects name each other through the
// reference fields their operator resolves itself (ASO owner references,
// Config Connector resourceRefs, ACK subnetRef and vpcRef), never through
// lookups of what already exists.
//
// Render validates its Input before rendering: an unknown provider, region,
// image family or a name that would break a provider's naming limits is an
// error naming the field, the value and what would be valid. Ready reads a
// rendered object back from the cluster and says whether its operator
// reports it ready, in that operator's own status convention.
package vmrender
