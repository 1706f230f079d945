package inventory

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/meridian-dev/meridian/internal/placement"
)

// View is what the workload controllers read of the inventory: the members'
// health, their connections, a snapshot for a decision, and the events that
// re-queue workloads. *Inventory implements it; a test may give a
// reconciler another.
type View interface {
	// Readiness returns every known member by name, and whether it is ready.
	Readiness() map[string]bool
	// NotReadySince returns when the member stopped being ready.
	NotReadySince(name string) (time.Time, bool)
	// Member returns the connection to the member, if there is one.
	Member(name string) (*Member, bool)
	// Members returns the names of the connected members.
	Members() []string
	// Connecting returns the members whose Cluster says Ready that are not
	// connected yet.
	Connecting() []string
	// SnapshotFor returns a snapshot with traffic and the assumptions
	// applied.
	SnapshotFor(traffic map[string]map[string]float64, a *placement.Assumptions) *placement.Snapshot
	// Subscribe returns a channel of the members whose capacity or health
	// changed.
	Subscribe() <-chan event.GenericEvent
	// OwnerSource returns a source of the owners of kind whose member
	// objects or pods changed.
	OwnerSource(kind string) source.Source
}

var _ View = &Inventory{}
