// Package multiclusterdeployment reconciles MultiClusterDeployments: it
// places each one with the placement framework on a live snapshot of the
// member clusters, writes the decision and its explanation into status and
// events, propagates a Deployment into every chosen member with server-side
// apply, and aggregates what the members report.
//
// One pass reads the same every time:
//
//  1. observe: per member, the Deployment Meridian made there (its replicas,
//     ready and available counts) and the workload's pods that sit Pending
//     as Unschedulable, from the inventory's caches;
//  2. place: the replicas on members that are not ready are held where they
//     are; the rest are placed on the ready members, with the replicas each
//     runs now as Workload.Current (so nothing moves without a reason) and
//     a member whose pods stayed Unschedulable beyond the grace period
//     marked Full, so that the overflow is re-placed by the substitution or
//     bursting policy instead of waiting forever;
//  3. propagate: members that gain replicas are written first; members that
//     lose replicas are written only once the gained replicas are ready, so
//     a move adds before it removes;
//  4. report: status.clusters explains every member (replicas and why, or
//     why none), the conditions say whether all replicas are placed,
//     propagated and available, and a changed decision is an event.
//
// Everything is derived from the members on every pass and every write is a
// server-side apply, so a restart in the middle of a move neither
// duplicates nor loses a member Deployment. Deletion (a finalizer) removes
// the member Deployments; member Deployments whose owner is gone are found
// and removed by the orphan sweeper.
package multiclusterdeployment
