// Package clusterapi is the cloud.Backend that creates cloud clusters with
// Cluster API: it writes the Cluster API objects of a cluster into the
// management cluster and lets Cluster API and its infrastructure provider,
// installed there, create the machines in the cloud.
//
// # Objects
//
// For a cloud.Spec named N in namespace NS, Ensure writes, with server-side
// apply and the field manager "meridian":
//
//   - the infrastructure cluster N (for OpenStack an OpenStackCluster whose
//     identityRef names the credentials Secret);
//   - two infrastructure machine templates, N-control-plane and N-md-0 (for
//     OpenStack OpenStackMachineTemplates with the flavor and image);
//   - a KubeadmControlPlane N-control-plane with one replica, whose
//     kube-scheduler packs pods (NodeResourcesFit MostAllocated, from a
//     KubeSchedulerConfiguration file kubeadm writes) so that nodes empty
//     out for the provisioner's consolidation, as the simulator assumes;
//   - a Cluster N that references the control plane and the infrastructure
//     cluster;
//   - a KubeadmConfigTemplate N-md-0 and a MachineDeployment N-md-0 with
//     spec.Workers replicas.
//
// The core objects are the Go types of sigs.k8s.io/cluster-api/api
// (cluster.x-k8s.io/v1beta2 and its kubeadm groups). The OpenStack objects
// are written as unstructured objects with the field names of Cluster API
// Provider OpenStack's infrastructure.cluster.x-k8s.io/v1beta1 API, because
// that provider's Go module cannot be fetched from the module proxy; see
// openstack.go.
//
// # State
//
// The backend keeps no state of its own: everything it needs is read back
// from the objects. Names are derived from spec.Name, so Ensure, Status and
// Delete find the same objects after a restart. Reads go through
// unstructured objects, so the client's scheme needs no Cluster API types
// and a cached client reads them directly from the API server.
//
// # Removing nodes
//
// A MachineDeployment removes machines of its choice when its replicas go
// down, unless some carry Cluster API's delete-machine annotation: those go
// first. Ensure therefore annotates the Machines whose nodes spec.Remove
// names before it lowers the replicas.
//
// # Readiness
//
// A cluster is Ready when Cluster API reports its control plane initialized
// (status.initialization.controlPlaneInitialized, or the
// ControlPlaneInitialized condition) and the kubeconfig Secret Cluster API
// writes, N-kubeconfig with the key "value", exists.
//
// # Deletion
//
// Delete deletes the Cluster, which Cluster API tears down in order (workers,
// control plane, infrastructure), and the templates. Once the Cluster is
// gone it also deletes whatever of the rest is left, which only happens
// when no Cluster API controller ran to remove it. Ensure refuses a Cluster
// being deleted, and every method leaves alone a Cluster (and the objects
// named like its own) that the field manager "meridian" did not write.
package clusterapi
