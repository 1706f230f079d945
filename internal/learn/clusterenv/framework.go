package clusterenv

import (
	"context"
	"fmt"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
	"github.com/meridian-dev/meridian/internal/placement/plugins/bestfit"
	"github.com/meridian-dev/meridian/internal/placement/plugins/learned"
	"github.com/meridian-dev/meridian/internal/placement/plugins/nearestfirst"
	"github.com/meridian-dev/meridian/internal/placement/plugins/worstfit"
)

// slot is the policy under which the frameworks of this package serve
// their one profile, whatever its score plugin: the policy the
// environment's workloads carry (Workload). A framework here has a single
// profile, so the slot's name selects nothing else.
const slot = placement.PolicyWorstFit

// The policies Run and the evaluation compare.
const (
	PolicyLearned  = "Learned"
	PolicyWorstFit = "WorstFit"
	PolicyBestFit  = "BestFit"
)

// NewFramework returns the placement framework of a policy: every
// profile's filters, the policy's score plugin at plugins.PrimaryWeight and
// nearest-first at plugins.TieBreakWeight, as plugins.Profiles builds them,
// with the learned plugin (on m) for PolicyLearned. Its one profile is
// served under the WorstFit policy, which Workload sets.
func NewFramework(policy string, m *learn.ClusterModel) (*placement.Framework, error) {
	reg := plugins.NewRegistry()
	var primary string
	switch policy {
	case PolicyLearned:
		if m == nil {
			return nil, fmt.Errorf("policy %s needs a model", policy)
		}
		primary = learned.Name
		reg[learned.Name] = func() (placement.Plugin, error) { return learned.NewWithModel(m), nil }
	case PolicyWorstFit:
		primary = worstfit.Name
	case PolicyBestFit:
		primary = bestfit.Name
	default:
		return nil, fmt.Errorf("policy %q: must be one of %s, %s, %s", policy, PolicyLearned, PolicyWorstFit, PolicyBestFit)
	}
	return placement.NewFramework(reg, placement.Profile{
		Policy:  slot,
		Filters: plugins.Profiles()[0].Filters,
		Scores: []placement.WeightedPlugin{
			{Name: primary, Weight: plugins.PrimaryWeight},
			{Name: nearestfirst.Name, Weight: plugins.TieBreakWeight},
		},
	})
}

// steer is the score plugin that puts the agent's chosen cluster first
// while training; the learned plugin orders the others.
type steer struct{ chosen string }

func (*steer) Name() string { return "steer" }

func (s *steer) Score(_ context.Context, _ *placement.Workload, c *placement.ClusterInfo, _ *placement.Snapshot) (int64, *placement.Status) {
	if c.Name == s.chosen {
		return placement.MaxScore, nil
	}
	return placement.MinScore, nil
}

// newSteeredFramework is NewFramework(PolicyLearned, m) with st first, at
// a weight that outweighs the learned plugin's whole range.
func newSteeredFramework(m *learn.ClusterModel, st *steer) (*placement.Framework, error) {
	reg := plugins.NewRegistry()
	reg[learned.Name] = func() (placement.Plugin, error) { return learned.NewWithModel(m), nil }
	reg[st.Name()] = func() (placement.Plugin, error) { return st, nil }
	return placement.NewFramework(reg, placement.Profile{
		Policy:  slot,
		Filters: plugins.Profiles()[0].Filters,
		Scores: []placement.WeightedPlugin{
			{Name: st.Name(), Weight: (placement.MaxScore + 1) * plugins.PrimaryWeight},
			{Name: learned.Name, Weight: plugins.PrimaryWeight},
			{Name: nearestfirst.Name, Weight: plugins.TieBreakWeight},
		},
	})
}
