// Package multiclusterjob reconciles MultiClusterJobs. A job is placed once,
// when it starts: the placement framework divides its parallel pods over
// the members by the job's placement policy (with substitution and
// bursting, as for deployments), the completions are shared in proportion,
// and a Job is created in every chosen member with server-side apply. From
// then on the controller follows the member Jobs and reports their active,
// succeeded and failed pods, and Complete or Failed once every member Job
// has finished. Parallel pods that fit nowhere at the start are reported
// (Placed is False) and the job starts with the pods that fit; when none
// fits, placement is retried until some do.
//
// Member Jobs are not moved once created: a Job's completions and template
// cannot change, and moving a running pod would lose its work. Deleting the
// MultiClusterJob deletes the member Jobs and their pods.
package multiclusterjob
