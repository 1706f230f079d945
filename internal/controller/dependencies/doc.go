// Package dependencies is the controller that carries the objects a
// workload's pods need (the ConfigMaps, Secrets, ServiceAccount and
// PersistentVolumeClaims its pod template names) to the member clusters
// that run its replicas, keeps them up to date, and removes them from a
// member once no workload there names them.
//
// It reconciles one namespace at a time: it reads the namespace's
// MultiClusterDeployments and MultiClusterJobs and where their replicas
// were placed (status.clusters), asks dependencies.Plan which member must
// hold what, and makes every connected member match: copies written with
// propagation.Dependency (server-side apply, skipped when the source's
// resourceVersion is the one already copied), copies no longer needed
// deleted. What a member holds is read from the member itself (the copies
// carry LabelDependency), so a restarted controller neither duplicates nor
// forgets a copy. An object of the same name that Meridian did not copy is
// never overwritten: the workloads that need it get a DependencyConflict
// event, as they get a DependencyMissing event for a required object the
// management cluster does not have.
package dependencies
