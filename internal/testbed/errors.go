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
)
