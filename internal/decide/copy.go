package decide

import (
	"context"
	"maps"
	"slices"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Duplicator chooses the clusters that get a copy of an object
// (placement.Framework.Duplicate).
type Duplicator interface {
	Duplicate(ctx context.Context, s *placement.Snapshot, w *placement.Workload) (*placement.Decision, error)
}

// CopyMember is what a member shows of an object copied whole.
type CopyMember struct {
	// Ready is the member's readiness; Exists whether it holds the copy.
	Ready, Exists bool
	// Foreign is whether it holds an object of the same kind and name that
	// Meridian did not make for this placement: it is never overwritten
	// nor removed.
	Foreign bool
}

// CopyInput is what one pass over an object copied whole reads.
type CopyInput struct {
	// Workload is the object as placed: placement.KindCopy.
	Workload *placement.Workload
	Snapshot *placement.Snapshot
	Members  map[string]CopyMember
}

// CopyPlan is the pass's outcome.
type CopyPlan struct {
	Decision *placement.Decision
	// Write are the ready members that must hold the copy, sorted.
	Write []string
	// Held are the members not ready that hold a copy: it stays, since
	// they cannot be told, and is corrected when they return.
	Held []string
	// Remove are the ready members that hold a copy they must not.
	Remove []string
	// Conflicts are the chosen members that hold a foreign object of the
	// same name, left as it is.
	Conflicts []string
}

// Copy decides where an object that is not divided goes: the clusters the
// duplicator chooses among the ready ones; a member that is not ready keeps
// the copy it has.
func Copy(ctx context.Context, d Duplicator, in CopyInput) (*CopyPlan, error) {
	dec, err := d.Duplicate(ctx, in.Snapshot, in.Workload)
	if err != nil {
		return nil, err
	}
	p := &CopyPlan{Decision: dec}
	chosen := map[string]bool{}
	for _, a := range dec.Assignments {
		chosen[a.Cluster] = true
	}
	for _, name := range slices.Sorted(maps.Keys(in.Members)) {
		m := in.Members[name]
		switch {
		case !m.Ready && m.Exists:
			p.Held = append(p.Held, name)
		case !m.Ready:
		case m.Foreign && chosen[name]:
			p.Conflicts = append(p.Conflicts, name)
		case m.Foreign:
		case chosen[name]:
			p.Write = append(p.Write, name)
		case m.Exists:
			p.Remove = append(p.Remove, name)
		}
	}
	return p, nil
}
