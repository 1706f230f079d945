// Package testbed is the cloud.Backend that creates cloud clusters on the
// local testbed (package testbed of internal): a cluster Meridian bursts
// into is one more member started on the running testbed, with kwok fake
// nodes as its workers, so that the whole provisioning loop (decide,
// create, join, scale, remove) runs on one machine with real API servers.
//
// # Mapping
//
// Ensure adds the cluster to the testbed when it is missing or broken
// (testbed.AddCluster: kube-apiserver, etcd, controller manager,
// scheduler, kwok and metrics-server, seconds to start) and sets the
// workers of each pool, one kwok node group per pool
// (testbed.SetNodeGroup): pool.Workers nodes named <cluster>-<pool>-<n>
// (<cluster>-worker-<n> for cloud.DefaultPool, the one pool of a cloud
// cluster made before node pools), of the pool's CPU and memory, labelled
// with spec.Region and the pool's name (LabelNodePool). The workers a
// pool's Remove names are deleted first, even when the count grows (they
// are then replaced by new names: a removed name never comes back), and
// the highest-numbered go next when there are still too many; a name that
// is not one of the pool's workers is skipped. Status reads the cluster's processes, API server and nodes;
// Delete stops the cluster and removes every trace of it
// (testbed.RemoveCluster).
//
// The provider, flavor, floating IP, credentials and labels of a Spec
// mean nothing here and are ignored; the namespace too, since the backend
// writes nothing to the management cluster. The kubeconfig Status returns
// reaches the cluster's API server on 127.0.0.1, so only from this
// machine.
//
// # State
//
// The backend keeps nothing in memory: the testbed's folder (testbed.json
// and the clusters' folders) is the state, read on every call, and the
// testbed's file lock orders concurrent calls, from this process or
// another. A cluster of the testbed's profile is not a cloud cluster:
// Status reports it as not existing and Ensure and Delete refuse it.
package testbed
