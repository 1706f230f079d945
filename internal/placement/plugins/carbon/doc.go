// Package carbon is the Carbon score plugin (issue 12): the cluster whose
// electricity grid (Cluster.GridZone) has the lowest carbon intensity now and
// over the next hours ranks first, so that MultiClusterDeployments and
// MultiClusterJobs follow the same signal as the carbon scheduler of
// CloudVMs. The intensities come from Snapshot.Carbon, the snapshot the
// carbon Refresher keeps in memory; the plugin does no I/O.
package carbon
