package policy

import "errors"

// Errors the Engine returns; callers test them with errors.Is.
var (
	// ErrInvalidInput means the input has a field the policies cannot use;
	// the error's text names the field and the valid values.
	ErrInvalidInput = errors.New("invalid policy input")
	// ErrUndefined means the query has no result for the input.
	ErrUndefined = errors.New("policy decision is undefined")
	// ErrBundle means a bundle could not be downloaded, read, verified or
	// compiled; the engine keeps the revision it had.
	ErrBundle = errors.New("policy bundle refused")
	// ErrRevisionGone means a decision cannot be replayed because the
	// revision it was made with is no longer kept.
	ErrRevisionGone = errors.New("bundle revision is no longer kept")
)
