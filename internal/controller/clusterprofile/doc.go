// Package clusterprofile keeps SIG Multicluster's ClusterProfiles
// (multicluster.x-k8s.io) and Meridian's Clusters in step, so that the
// fleet is visible to every ClusterProfile consumer (Argo CD, MultiKueue,
// OCM, KubeFleet) and Meridian can take members another cluster manager
// already knows.
//
// Export: every Cluster gets a ClusterProfile of the same name in the
// profile namespace (clusterinventory.ProfileOf), owned by it, its status
// following the Cluster's at every change. Import (opt-in): a ClusterProfile
// of another cluster manager whose access provider is a kubeconfig Secret
// (clusterinventory.ClusterOf) becomes a Cluster that follows the profile
// and goes with it; one Meridian cannot read is left alone with a warning
// event that names what it offers and what Meridian reads. The controller
// runs only when the management cluster serves the ClusterProfile CRD.
package clusterprofile
