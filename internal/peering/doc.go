// Package peering peers two clusters for resource sharing and unpeers
// them: what `meridian peer` and `meridian unpeer` do, and what the sharing
// testbed profile runs.
//
// Each cluster gets, for the other, a namespace from-<other> that the other
// writes its sharing messages into, a ServiceAccount <other> there with a
// Role limited to those messages, and, in a cluster that lends to the
// other, a ClusterRole for the other's twins (the pods reflected from its
// virtual nodes, with their ConfigMaps and Secrets). The other cluster
// holds a kubeconfig of that ServiceAccount (a token from the TokenRequest
// API) in the Secret peer-<cluster> of the agents' namespace, and a Peer
// naming the cluster, its API server, that Secret, the identity it writes
// back with, and, when it borrows, the lender's terms (share, prices).
//
// Everything is server-side applied under one field manager and labelled
// with the pair, so a second peering with the same terms changes nothing and
// Unpeer finds all of it. Deleting the ServiceAccount ends its tokens.
package peering
