package sim

import (
	"fmt"

	"github.com/meridian-dev/meridian/internal/placement/plugins"
)

// newFramework builds the real placement framework, with every policy's
// profile, exactly as the controller does.
func newFramework() (Placer, error) {
	f, err := plugins.NewFramework()
	if err != nil {
		return nil, fmt.Errorf("failed to build the placement framework: %w", err)
	}
	return f, nil
}
