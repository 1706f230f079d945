// Package propagation writes Meridian's decisions into member clusters: it
// builds the member objects (a Deployment per MultiClusterDeployment and
// cluster, a Job per MultiClusterJob, a Service per MultiClusterService),
// labels them back to their owner in the management cluster, and applies
// them with server-side apply under one field manager, creating the
// namespace first when it is missing.
//
// Server-side apply makes propagation idempotent: applying the same object
// twice, or after a restart of the controller, changes nothing and never
// duplicates, and fields other managers own in the member (an HPA's
// replicas, a mesh's annotations) are left alone unless Meridian owns them.
package propagation
