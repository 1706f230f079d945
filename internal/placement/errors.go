package placement

import "errors"

// The sentinel errors of the package. Every error the package returns wraps
// one of them, so callers can tell bad input from a broken configuration
// with errors.Is.
var (
	// ErrInvalidWorkload means Workload.Validate rejected the workload; the
	// wrapped error names every bad field.
	ErrInvalidWorkload = errors.New("invalid workload")
	// ErrUnknownPolicy means no profile of the framework serves the
	// workload's policy.
	ErrUnknownPolicy = errors.New("unknown placement policy")
	// ErrUnknownPlugin means a profile names a plugin that the registry does
	// not hold.
	ErrUnknownPlugin = errors.New("unknown plugin")
	// ErrDuplicatePlugin means a plugin name was registered twice.
	ErrDuplicatePlugin = errors.New("duplicate plugin")
	// ErrInvalidProfile means a profile is malformed: no policy, a
	// duplicate policy, a plugin that lacks the extension point it is listed
	// under, or a weight that is not positive.
	ErrInvalidProfile = errors.New("invalid profile")
	// ErrPluginFailed means a plugin returned an Error status while scoring.
	ErrPluginFailed = errors.New("plugin failed")
)
