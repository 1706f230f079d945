// Package join adds a member cluster to Meridian and takes it away again:
// what `meridian join` and `meridian unjoin` do.
//
// Join writes, in the member, a namespace (unless it is there), the
// ServiceAccount the controller acts as, the ClusterRole `make manifests`
// generates from this package's RBAC markers (what the controller does in
// members and nothing more, see member_rbac.go) and its binding, and a Role
// that lets the ServiceAccount renew its own token; it issues a short-lived
// token through the TokenRequest API and writes, in the management
// cluster, a self-contained kubeconfig Secret and the Cluster. Everything is
// server-side applied under one field manager, so a second join with the
// same flags changes nothing, and every object carries the
// multicluster.meridian.dev/joined-cluster label, so that Unjoin finds all
// of it. Before writing, Join checks that the member answers, that it was
// not joined under another name, and, with SelfSubjectAccessReviews in
// both clusters, that the caller may do every write; each failure names
// what is missing.
//
// Unjoin refuses while the member still runs Meridian's workloads, unless
// asked to drain them away first (a NoExecute taint on the Cluster) or
// forced; then it deletes the Cluster (the controller's finalizer removes
// Meridian's objects from the member), and everything Join made on both
// sides.
package join
