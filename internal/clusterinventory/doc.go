// Package clusterinventory speaks SIG Multicluster's Cluster Inventory API
// (ClusterProfile, multicluster.x-k8s.io/v1alpha1): how Argo CD, Kueue's
// MultiKueue, OCM and KubeFleet find a fleet's clusters and the credentials
// to reach them. Meridian keeps a ClusterProfile for every member it
// manages (ProfileOf), whose access provider points consumers at the
// member's kubeconfig Secret in the convention of the API's
// kubeconfig-secretreader plugin, and can take members from the
// ClusterProfiles of other cluster managers that use that convention
// (ClusterOf).
//
// The API's module is not served here: the types are written to match its
// published CRD (crd/, with its source and licence), which CRD embeds.
// +kubebuilder:object:generate=true
package clusterinventory
