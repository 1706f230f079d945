// Package probe measures the round-trip times between member clusters, as
// seed 001 measured them with serf on the members: `meridian probe` runs in
// each member, answers the probes of the others (an echo over TCP) and
// measures its own round trips to them, and the Cluster controller carries
// the results into Cluster.status.latencies.
//
// The prober reaches only its own member's API server, through two
// ConfigMaps in its namespace: it writes ProbeConfigMap (its advertised
// address and the round-trip times it measured, each with when) and reads
// TargetsConfigMap, which the controller writes with the advertised
// addresses of every other member. So a prober needs no credentials of
// other clusters, and the controller none beyond its member role.
//
// A round trip is one line written and echoed back on a connection already
// open, so that neither the TCP handshake nor a connection's slow start is
// counted; the result is the shortest of Samples round trips, the link's
// own delay without the queueing a busy moment adds to some of them.
package probe

// The prober's rights in its member: its two ConfigMaps, by name, and the
// create a first server-side apply of its own needs.
// +kubebuilder:rbac:groups="",resources=configmaps,resourceNames=meridian-probe-targets,verbs=get
// +kubebuilder:rbac:groups="",resources=configmaps,resourceNames=meridian-probe,verbs=patch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create
