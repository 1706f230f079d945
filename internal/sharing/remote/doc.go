// Package remote reaches the API servers of sharing peers: a client built
// from the kubeconfig in the credentials Secret a Peer names, writing into
// the namespace of that kubeconfig's current context (the one the peer
// mapped to this cluster, where its least-privilege service account may
// write). The agent reaches its peers with it and the broker its members,
// so both read credentials by the same rules: a kubeconfig must be self
// contained (no local file, no credential plugin) and name its namespace.
package remote
