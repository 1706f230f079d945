package decide

import (
	"context"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Placer is the placement framework as a decision calls it.
type Placer interface {
	Place(ctx context.Context, s *placement.Snapshot, w *placement.Workload) (*placement.Decision, error)
	// Rebalances reports whether the policy places every replica afresh on
	// each decision, as traffic-aware placement does.
	Rebalances(policy placement.Policy) bool
}
