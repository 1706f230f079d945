package placement

import (
	"fmt"
	"maps"
	"slices"
)

// PluginFactory builds one plugin. A framework calls each factory once and
// shares the plugin between its profiles and between concurrent Place
// calls, so a plugin keeps no state per call.
type PluginFactory func() (Plugin, error)

// Registry maps plugin names to their factories.
type Registry map[string]PluginFactory

// Register adds a factory under the name; it refuses a name that is
// already registered, so that two plugins can never shadow each other.
func (r Registry) Register(name string, factory PluginFactory) error {
	if _, ok := r[name]; ok {
		return fmt.Errorf("failed to register plugin %q: %w", name, ErrDuplicatePlugin)
	}
	if factory == nil {
		return fmt.Errorf("failed to register plugin %q: the factory is nil", name)
	}
	r[name] = factory
	return nil
}

// Merge registers every factory of other into r, in name order; it stops at
// the first name r already holds.
func (r Registry) Merge(other Registry) error {
	for _, name := range slices.Sorted(maps.Keys(other)) {
		if err := r.Register(name, other[name]); err != nil {
			return err
		}
	}
	return nil
}

// WeightedPlugin names a score plugin and the weight its normalized score
// is multiplied by before the scores of a cluster are summed.
type WeightedPlugin struct {
	Name   string
	Weight int64
}

// Profile is how one policy places a workload: the filters that rule
// clusters out, in the order they run (the first rejection is the one
// reported), and the score plugins whose weighted sum orders the rest.
type Profile struct {
	Policy  Policy
	Filters []string
	Scores  []WeightedPlugin
	// Rebalance places every replica afresh on each decision instead of
	// keeping the workload's current replicas where they are (capacity
	// still counts them). The traffic-aware profile sets it so that
	// replicas follow their traffic, as in seed 001's experiment VI-C.
	Rebalance bool
}
