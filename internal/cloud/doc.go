// Package cloud is the boundary between Meridian and whatever creates the
// clusters it bursts into. A Backend creates a cluster with node pools,
// each a number of worker nodes of one size (flavor), changes those numbers
// (removing the nodes it is told to first), reports whether the cluster is ready and how to reach it,
// and removes it. The CloudProvisioner controller decides when (package
// provision); a Backend only carries the decision out.
//
// Two backends implement it: clusterapi writes Cluster API objects (Cluster,
// KubeadmControlPlane, one MachineDeployment per pool and the provider's
// infrastructure templates) for a real cloud, and testbed starts a local
// member cluster with one group of kwok fake nodes per pool, so that the whole loop runs on one machine.
//
// Every method is idempotent and returns once the request is recorded; the
// controller calls Ensure and Status on every reconcile until the cluster is
// Ready, so a backend never needs to remember anything between calls that
// it cannot read back from where it keeps its state.
package cloud
