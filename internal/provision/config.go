package provision

import (
	"fmt"
	"time"

	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/placement"
)

// Mode selects how the provisioner anticipates demand.
type Mode string

// The provisioning modes.
const (
	// Reactive provisions only for replicas that are unschedulable now
	// (seed 001's Algorithm 4).
	Reactive Mode = "Reactive"
	// Predictive also provisions for the demand forecast over the lead time.
	Predictive Mode = "Predictive"
)

// Flavor is a machine size the cloud offers: one node pool of the cloud
// cluster.
type Flavor struct {
	Name        string
	Allocatable placement.Resources
	// PricePerHour is what one node costs per hour; the zero Money for a
	// flavor without a price, which costs nothing. Every priced flavor of
	// a Config is in one currency.
	PricePerHour money.Money
}

// Config is a cloud provisioner's configuration.
type Config struct {
	Mode    Mode
	Flavors []Flavor
	// MinNodes and MaxNodes bound the nodes of the cloud cluster.
	MinNodes int
	MaxNodes int
	// ClusterDelay is how long a new cloud cluster takes to become usable,
	// and NodeDelay how long an added node takes.
	ClusterDelay time.Duration
	NodeDelay    time.Duration
	// Period is how often the provisioner decides.
	Period time.Duration
	// ScaleDownDelay is how long a node must be unneeded before it goes,
	// and ScaleDownUtilization the requested fraction below which it may.
	ScaleDownDelay       time.Duration
	ScaleDownUtilization float64
	// DeprovisionDelay is how long the cloud cluster must run no workload
	// before it is removed.
	DeprovisionDelay time.Duration
	// TargetUtilization is, in predictive mode, the fraction of the total
	// capacity the forecast demand may fill.
	TargetUtilization float64
	// TrendWindow is how much demand history the forecast fits.
	TrendWindow time.Duration
	// JoinGrace is how long a registered node may stay not Ready before
	// it counts as broken, and NotReadyGrace how long a broken node is
	// kept, and paid for, before it is removed (and so replaced, when its
	// pods fit nowhere else). Zero means DefaultJoinGrace and
	// DefaultNotReadyGrace.
	JoinGrace     time.Duration
	NotReadyGrace time.Duration
}

// The predictive mode's settings where none are given: the CloudProvisioner
// controller's, and a simulated policy's that sets none. A 15-minute window
// holds a rise's trend without following each burst, and 0.8 leaves the
// room a burst takes in the minutes before new nodes join. They go with the
// forecast's reaches and with growing a cluster being provisioned:
// together these kept more of 64 simulated runs at or below 1 % pending,
// for less cloud, than 10 minutes and 0.85 with the plain forecast
// (docs/design/20261123-predictive-cost.md).
const (
	DefaultTargetUtilization = 0.8
	DefaultTrendWindow       = 15 * time.Minute
)

// The graces of a Config that leaves them zero. They are those of the
// Kubernetes cluster autoscaler (max-node-provision-time 15 minutes) and
// a little over the 5 minutes after which Kubernetes evicts the pods of a
// NotReady node, so that a broken node is not paid for once its pods left.
const (
	DefaultJoinGrace     = 15 * time.Minute
	DefaultNotReadyGrace = 10 * time.Minute
)

func (c Config) joinGrace() time.Duration {
	if c.JoinGrace > 0 {
		return c.JoinGrace
	}
	return DefaultJoinGrace
}

func (c Config) notReadyGrace() time.Duration {
	if c.NotReadyGrace > 0 {
		return c.NotReadyGrace
	}
	return DefaultNotReadyGrace
}

// Flavor returns the configured flavor of that name, and whether there is
// one: a node of a flavor that is not configured any more is retired.
func (c Config) Flavor(name string) (Flavor, bool) {
	for _, f := range c.Flavors {
		if f.Name == name {
			return f, true
		}
	}
	return Flavor{}, false
}

// PadFlavor is the flavor of the nodes that only MinNodes asks for: the
// cheapest, and of flavors of one price the smallest. The provisioner pads
// its decisions with it, and the controller an adopted cluster, so that
// the two never disagree on which pool grows.
func (c Config) PadFlavor() (Flavor, bool) {
	i := c.padFlavor()
	if i < 0 {
		return Flavor{}, false
	}
	return c.Flavors[i], true
}

func (c Config) padFlavor() int { return cheapestFor(placement.Resources{}, c.Flavors) }

// Validate reports the first field of c that is out of range.
func (c Config) Validate() error {
	switch {
	case c.Mode != Reactive && c.Mode != Predictive:
		return fmt.Errorf("mode %q: must be %q or %q", c.Mode, Reactive, Predictive)
	case len(c.Flavors) == 0:
		return fmt.Errorf("flavors: at least one is needed")
	case c.MinNodes < 1:
		return fmt.Errorf("minNodes %d: must be at least 1", c.MinNodes)
	case c.MaxNodes < c.MinNodes:
		return fmt.Errorf("maxNodes %d: must be at least minNodes (%d)", c.MaxNodes, c.MinNodes)
	case c.Period <= 0:
		return fmt.Errorf("period %v: must be positive", c.Period)
	case c.ScaleDownUtilization < 0 || c.ScaleDownUtilization > 1:
		return fmt.Errorf("scaleDownUtilization %g: must be in [0, 1]", c.ScaleDownUtilization)
	case c.Mode == Predictive && (c.TargetUtilization <= 0 || c.TargetUtilization > 1):
		return fmt.Errorf("targetUtilization %g: must be in (0, 1]", c.TargetUtilization)
	case c.Mode == Predictive && c.TrendWindow < c.Period:
		return fmt.Errorf("trendWindow %v: must be at least the period (%v)", c.TrendWindow, c.Period)
	case c.JoinGrace < 0 || c.NotReadyGrace < 0:
		return fmt.Errorf("joinGrace %v and notReadyGrace %v: must be 0 (the default) or more", c.JoinGrace, c.NotReadyGrace)
	}
	seen := map[string]bool{}
	priced := -1
	for i, f := range c.Flavors {
		switch {
		case f.Name == "":
			return fmt.Errorf("flavors[%d]: a name is needed", i)
		case seen[f.Name]:
			return fmt.Errorf("flavors[%d] %q: the name is taken by an earlier flavor", i, f.Name)
		case f.Allocatable.MilliCPU <= 0 || f.Allocatable.Memory <= 0 || f.Allocatable.Pods <= 0:
			return fmt.Errorf("flavors[%d] %q: CPU, memory and pods must be positive", i, f.Name)
		case f.PricePerHour.Sign() < 0:
			return fmt.Errorf("flavors[%d] %q: pricePerHour %s must be at least 0", i, f.Name, f.PricePerHour)
		case priced >= 0 && !f.PricePerHour.Compatible(c.Flavors[priced].PricePerHour):
			return fmt.Errorf("flavors[%d] %q: pricePerHour is in %s and flavors[%d] %q in %s; flavors are compared by price, so every one must be in the same currency: %w",
				i, f.Name, f.PricePerHour.Currency(), priced, c.Flavors[priced].Name, c.Flavors[priced].PricePerHour.Currency(), money.ErrMixedCurrencies)
		}
		if f.PricePerHour.Currency() != "" && priced < 0 {
			priced = i
		}
		seen[f.Name] = true
	}
	return nil
}
