package decide

import (
	"errors"

	"github.com/meridian-dev/meridian/internal/placement"
)

// InvalidSpec reports whether err says the workload's spec must change
// before it can be placed (a field the framework refuses, a policy it does
// not serve), as opposed to a failure that a retry may cure (a cancelled
// context, a plugin that failed). A controller reports the first on the
// object and does not retry; it returns the second to be retried.
func InvalidSpec(err error) bool {
	return errors.Is(err, placement.ErrInvalidWorkload) || errors.Is(err, placement.ErrUnknownPolicy)
}
