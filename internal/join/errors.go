package join

import "errors"

// Sentinel errors of a join and an unjoin; each error returned wraps one
// and says the rest.
var (
	// ErrUnreachable means a cluster's API server did not answer.
	ErrUnreachable = errors.New("unreachable")
	// ErrForbidden means the caller lacks a right a join or unjoin needs;
	// the error names each one.
	ErrForbidden = errors.New("missing rights")
	// ErrJoinedElsewhere means the member is already joined under another
	// name, or by another management cluster, or the name is another
	// member's.
	ErrJoinedElsewhere = errors.New("already joined")
	// ErrExists means an object Join would write exists and is not Join's.
	ErrExists = errors.New("exists")
	// ErrStillRunning means the member still holds Meridian's workloads.
	ErrStillRunning = errors.New("member still runs Meridian's objects")
	// ErrNotJoined means the Cluster was not made by Join.
	ErrNotJoined = errors.New("not made by meridian join")
	// ErrCleanupTimeout means the Cluster was not released in time.
	ErrCleanupTimeout = errors.New("timed out")
)
