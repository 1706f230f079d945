package testbed

import "errors"

// Sentinel errors; match them with errors.Is.
var (
	// ErrAlreadyUp means a testbed of the same folder has running
	// processes: Up refuses to start a second one over it.
	ErrAlreadyUp = errors.New("testbed is already up")

	// ErrNotFound means no testbed lives in the folder.
	ErrNotFound = errors.New("no testbed")

	// ErrBusy means another meridian command holds the testbed's lock.
	ErrBusy = errors.New("testbed is busy")

	// ErrUnknownProfile means no built-in profile has the name asked for.
	ErrUnknownProfile = errors.New("unknown profile")

	// ErrClusterNotFound means the testbed has no cluster of the name
	// asked for.
	ErrClusterNotFound = errors.New("no such cluster")

	// ErrProfileCluster means a call that acts on added members was asked
	// to act on the management cluster or on a member of the profile,
	// which live and die with the testbed.
	ErrProfileCluster = errors.New("cluster belongs to the testbed's profile")
)
