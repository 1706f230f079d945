package plugins

import (
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins/affinity"
	"github.com/meridian-dev/meridian/internal/placement/plugins/bestfit"
	"github.com/meridian-dev/meridian/internal/placement/plugins/carbon"
	"github.com/meridian-dev/meridian/internal/placement/plugins/clusterselector"
	"github.com/meridian-dev/meridian/internal/placement/plugins/fit"
	"github.com/meridian-dev/meridian/internal/placement/plugins/latencylimit"
	"github.com/meridian-dev/meridian/internal/placement/plugins/learned"
	"github.com/meridian-dev/meridian/internal/placement/plugins/locations"
	"github.com/meridian-dev/meridian/internal/placement/plugins/nearestfirst"
	"github.com/meridian-dev/meridian/internal/placement/plugins/ready"
	"github.com/meridian-dev/meridian/internal/placement/plugins/residency"
	"github.com/meridian-dev/meridian/internal/placement/plugins/taints"
	"github.com/meridian-dev/meridian/internal/placement/plugins/trafficaware"
	"github.com/meridian-dev/meridian/internal/placement/plugins/worstfit"
)

// The weights of the profiles: a policy's own score plugin counts
// PrimaryWeight times, the nearest-first tie-breaker once, so that one point
// of the policy's score (PrimaryWeight) is worth more than the tie-breaker's
// whole range (MaxScore).
const (
	PrimaryWeight  = placement.MaxScore + 1
	TieBreakWeight = 1
)

// NewRegistry returns the registry of every placement plugin.
func NewRegistry() placement.Registry {
	return placement.Registry{
		// Filters.
		ready.Name:           ready.New,
		locations.Name:       locations.New,
		clusterselector.Name: clusterselector.New,
		taints.Name:          taints.New,
		latencylimit.Name:    latencylimit.New,
		residency.Name:       residency.New,
		fit.Name:             fit.New,
		// Scores.
		affinity.Name:     affinity.New,
		worstfit.Name:     worstfit.New,
		bestfit.Name:      bestfit.New,
		trafficaware.Name: trafficaware.New,
		nearestfirst.Name: nearestfirst.New,
		carbon.Name:       carbon.New,
		learned.Name:      learned.New,
	}
}

// filters are the filters of every profile, cheapest first; fit, which
// looks at nodes, runs last. The latency limit and residency filters pass
// every cluster for a workload that sets neither.
var filters = []string{ready.Name, locations.Name, clusterselector.Name, taints.Name, latencylimit.Name, residency.Name, fit.Name}

// Profiles returns one profile per placement policy: seed 001's, and
// Carbon (issue 12), which ranks by the grid's carbon intensity.
func Profiles() []placement.Profile {
	profile := func(p placement.Policy, primary string) placement.Profile {
		return placement.Profile{
			Policy:  p,
			Filters: append([]string(nil), filters...),
			Scores: []placement.WeightedPlugin{
				{Name: primary, Weight: PrimaryWeight},
				{Name: nearestfirst.Name, Weight: TieBreakWeight},
			},
		}
	}
	trafficAware := profile(placement.PolicyTrafficAware, trafficaware.Name)
	// Replicas follow their traffic rather than stay where they run.
	trafficAware.Rebalance = true
	return []placement.Profile{
		profile(placement.PolicyClusterAffinity, affinity.Name),
		profile(placement.PolicyWorstFit, worstfit.Name),
		profile(placement.PolicyBestFit, bestfit.Name),
		trafficAware,
		profile(placement.PolicyCarbon, carbon.Name),
		profile(placement.PolicyLearned, learned.Name),
	}
}

// NewFramework returns the default framework: every plugin, every profile.
func NewFramework() (*placement.Framework, error) {
	return placement.NewFramework(NewRegistry(), Profiles()...)
}
