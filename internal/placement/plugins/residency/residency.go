package residency

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "residency"

// EU is the jurisdiction that stands for every member state of the
// European Union.
const EU = "EU"

// euMembers are the ISO 3166-1 alpha-2 codes of the 27 member states of the
// European Union (Greece is GR, as ISO 3166 has it, not the EU's EL).
var euMembers = []string{
	"AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU",
	"IE", "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
}

// Residency rejects the clusters outside the workload's Jurisdictions; a
// workload without any may go anywhere.
type Residency struct{}

var _ placement.FilterPlugin = &Residency{}

// New returns the plugin.
func New() (placement.Plugin, error) { return &Residency{}, nil }

// Name returns Name.
func (*Residency) Name() string { return Name }

// Allowed reports whether a cluster in jurisdiction j may hold data
// restricted to the allowed jurisdictions: j is one of them, or j is a
// subdivision of one ("US-CA" of "US"), or j's country is an EU member state
// and "EU" is allowed. A cluster without a jurisdiction is never allowed.
func Allowed(j string, allowed []string) bool {
	if j == "" {
		return false
	}
	country, _, _ := strings.Cut(j, "-")
	for _, a := range allowed {
		switch {
		case a == j, a == country:
			return true
		case a == EU && (j == EU || slices.Contains(euMembers, country)):
			return true
		}
	}
	return false
}

// Filter rejects a cluster outside the allowed jurisdictions, as
// UnschedulableAndUnresolvable.
func (*Residency) Filter(_ context.Context, w *placement.Workload, c *placement.ClusterInfo) *placement.Status {
	if len(w.Jurisdictions) == 0 || Allowed(c.Jurisdiction, w.Jurisdictions) {
		return nil
	}
	allowed := strings.Join(w.Jurisdictions, ", ")
	if c.Jurisdiction == "" {
		return &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name,
			Reason: fmt.Sprintf("the cluster declares no jurisdiction (spec.jurisdiction), and the workload's data must stay in %s", allowed)}
	}
	return &placement.Status{Code: placement.UnschedulableAndUnresolvable, Plugin: Name,
		Reason: fmt.Sprintf("the cluster is in jurisdiction %s, and the workload's data must stay in %s", c.Jurisdiction, allowed)}
}
