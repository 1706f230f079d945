package optimizer

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/meridian-dev/meridian/internal/money"
)

// Rule selects how the optimizer reports reliability, switches phase and
// advises during training.
type Rule string

const (
	// RuleMeridian uses held-out error for reliability and the phase switch
	// and explores during training.
	RuleMeridian Rule = "meridian"
	// RuleSeed is the seed's behaviour: production once
	// TrainingSamplesRequired samples were seen, reliability the in-sample
	// correlation, no advice (valid false) during training.
	RuleSeed Rule = "seed"
)

// Defaults of Config. The seed's own defaults (300 samples, deltas of 6,
// no freeze) are kept where the seed names them, except the sample count: in
// RuleMeridian the count is a floor under the held-out check, not the switch
// itself, so it can be low.
const (
	DefaultTrainingSamplesRequired = 60
	DefaultSeedTrainingSamples     = 300
	DefaultMaxUpscaleDelta         = 6
	DefaultMaxDownscaleDelta       = 6
	DefaultMaxHoldoutError         = 0.25
	DefaultHoldoutFraction         = 0.2
	DefaultKnowledgeBaseSize       = 1000
	DefaultHidden                  = 6
	DefaultSafetyMargin            = 0.2
	DefaultAdviceMargin            = 0.3
	DefaultRetrainEvery            = 10
)

// Target is the target metric and the band it must stay in.
type Target struct {
	Name string
	Min  float64
	Max  float64
}

// ClusterPrice is one cluster the workload may run in, with its price.
type ClusterPrice struct {
	Name string
	// PricePerHour is the price of one replica-hour in this cluster; every
	// cluster of a Config is priced in one currency.
	PricePerHour money.Money
	// MaxReplicas caps the replicas placed here; zero means no cap.
	MaxReplicas int
}

// Config is one optimizer's configuration.
type Config struct {
	// Inputs names the system metrics, in the order of Sample.Inputs.
	Inputs []string
	Target Target
	// MinReplicas and MaxReplicas bound every advice.
	MinReplicas int
	MaxReplicas int
	// MaxUpscaleDelta and MaxDownscaleDelta bound one advice's change.
	MaxUpscaleDelta   int
	MaxDownscaleDelta int
	// FreezeInterval is how long an advised count holds before a different
	// one may be advised.
	FreezeInterval time.Duration
	// TrainingSamplesRequired is the fewest samples before production.
	TrainingSamplesRequired int
	// MaxHoldoutError is the held-out RMSE, as a fraction of the band's
	// width, at or below which the optimizer may enter production.
	MaxHoldoutError float64
	// HoldoutFraction is the newest part of the knowledge base held out.
	HoldoutFraction float64
	// KnowledgeBaseSize is how many of the newest samples are kept.
	KnowledgeBaseSize int
	// Hidden is the number of tanh units of the network.
	Hidden int
	// SafetyMargin is the fraction of the band's width below its upper edge
	// that exploration does not scale down into.
	SafetyMargin float64
	// AdviceMargin is the fraction of the band's width by which each edge is
	// moved inwards when production advice selects counts.
	AdviceMargin float64
	// RetrainEvery is how many samples pass between two trainings.
	RetrainEvery int
	// Seed makes network initialisation and exploration reproducible.
	Seed uint64
	// Rule is RuleMeridian (default) or RuleSeed.
	Rule Rule
	// Clusters, if set, prices the advice.
	Clusters []ClusterPrice
}

// Default returns the defaults for the given inputs, target and bounds.
func Default(inputs []string, target Target, minReplicas, maxReplicas int) Config {
	return Config{
		Inputs:                  inputs,
		Target:                  target,
		MinReplicas:             minReplicas,
		MaxReplicas:             maxReplicas,
		MaxUpscaleDelta:         DefaultMaxUpscaleDelta,
		MaxDownscaleDelta:       DefaultMaxDownscaleDelta,
		TrainingSamplesRequired: DefaultTrainingSamplesRequired,
		MaxHoldoutError:         DefaultMaxHoldoutError,
		HoldoutFraction:         DefaultHoldoutFraction,
		KnowledgeBaseSize:       DefaultKnowledgeBaseSize,
		Hidden:                  DefaultHidden,
		SafetyMargin:            DefaultSafetyMargin,
		AdviceMargin:            DefaultAdviceMargin,
		RetrainEvery:            DefaultRetrainEvery,
		Rule:                    RuleMeridian,
	}
}

// Errors of the optimizer.
var (
	// ErrInvalidConfig wraps every configuration error.
	ErrInvalidConfig = errors.New("invalid optimizer configuration")
	// ErrInvalidSample wraps every sample error.
	ErrInvalidSample = errors.New("invalid sample")
)

// FieldError is bad input: the field, the value given and what is valid.
type FieldError struct {
	Field string
	Value any
	Valid string
	kind  error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %v: %s", e.Field, e.Value, e.Valid)
}

// Unwrap returns ErrInvalidConfig or ErrInvalidSample.
func (e *FieldError) Unwrap() error { return e.kind }

func configError(field string, value any, valid string) error {
	return &FieldError{Field: field, Value: value, Valid: valid, kind: ErrInvalidConfig}
}

// Validate returns a *FieldError for the first field of c out of range.
func (c Config) Validate() error {
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	seen := map[string]bool{}
	for i, name := range c.Inputs {
		if name == "" || seen[name] {
			return configError(fmt.Sprintf("inputs[%d]", i), fmt.Sprintf("%q", name), "must be a non-empty name used once")
		}
		seen[name] = true
	}
	switch {
	case len(c.Inputs) == 0:
		return configError("inputs", "[]", "at least one system metric is required")
	case c.Target.Name == "":
		return configError("target.name", `""`, "must name the target metric")
	case !finite(c.Target.Min):
		return configError("target.min", c.Target.Min, "must be a finite number")
	case !finite(c.Target.Max) || c.Target.Max <= c.Target.Min:
		return configError("target.max", c.Target.Max, fmt.Sprintf("must be finite and above target.min (%g)", c.Target.Min))
	case c.MinReplicas < 1:
		return configError("minReplicas", c.MinReplicas, "must be at least 1")
	case c.MaxReplicas < c.MinReplicas:
		return configError("maxReplicas", c.MaxReplicas, fmt.Sprintf("must be at least minReplicas (%d)", c.MinReplicas))
	case c.MaxUpscaleDelta < 1:
		return configError("maxUpscaleDelta", c.MaxUpscaleDelta, "must be at least 1")
	case c.MaxDownscaleDelta < 1:
		return configError("maxDownscaleDelta", c.MaxDownscaleDelta, "must be at least 1")
	case c.FreezeInterval < 0:
		return configError("freezeInterval", c.FreezeInterval, "must not be negative")
	case c.TrainingSamplesRequired < 10:
		return configError("trainingSamplesRequired", c.TrainingSamplesRequired, "must be at least 10")
	case !(c.MaxHoldoutError > 0) || !finite(c.MaxHoldoutError):
		return configError("maxHoldoutError", c.MaxHoldoutError, "must be a finite number above 0")
	case !(c.HoldoutFraction > 0 && c.HoldoutFraction < 0.5):
		return configError("holdoutFraction", c.HoldoutFraction, "must be in (0, 0.5)")
	case c.KnowledgeBaseSize < c.TrainingSamplesRequired:
		return configError("knowledgeBaseSize", c.KnowledgeBaseSize, fmt.Sprintf("must be at least trainingSamplesRequired (%d)", c.TrainingSamplesRequired))
	case c.Hidden < 1 || c.Hidden > 64:
		return configError("hidden", c.Hidden, "must be in [1, 64]")
	case !(c.SafetyMargin >= 0 && c.SafetyMargin < 0.5):
		return configError("safetyMargin", c.SafetyMargin, "must be in [0, 0.5)")
	case !(c.AdviceMargin >= 0 && c.AdviceMargin < 0.5):
		return configError("adviceMargin", c.AdviceMargin, "must be in [0, 0.5)")
	case c.RetrainEvery < 1:
		return configError("retrainEvery", c.RetrainEvery, "must be at least 1")
	case c.Rule != RuleMeridian && c.Rule != RuleSeed:
		return configError("rule", fmt.Sprintf("%q", c.Rule), `must be "meridian" or "seed"`)
	}
	names := map[string]bool{}
	for i, cl := range c.Clusters {
		switch {
		case cl.Name == "" || names[cl.Name]:
			return configError(fmt.Sprintf("clusters[%d].name", i), fmt.Sprintf("%q", cl.Name), "must be a non-empty name used once")
		case cl.PricePerHour.Sign() < 0:
			return configError(fmt.Sprintf("clusters[%d].pricePerHour", i), cl.PricePerHour, "must be 0 or more")
		case !cl.PricePerHour.Compatible(c.Clusters[0].PricePerHour):
			return configError(fmt.Sprintf("clusters[%d].pricePerHour.currency", i), fmt.Sprintf("%q", cl.PricePerHour.Currency()),
				fmt.Sprintf("must be %s, the currency of clusters[0]: the optimizer adds and compares the clusters' prices, so one currency per optimizer", c.Clusters[0].PricePerHour.Currency()))
		case cl.MaxReplicas < 0:
			return configError(fmt.Sprintf("clusters[%d].maxReplicas", i), cl.MaxReplicas, "must be 0 (no cap) or more")
		}
		names[cl.Name] = true
	}
	if capacity, ok := clusterCapacity(c.Clusters); ok && capacity < c.MinReplicas {
		return configError("clusters", fmt.Sprintf("capacity %d", capacity), fmt.Sprintf("must hold at least minReplicas (%d)", c.MinReplicas))
	}
	return nil
}

// bandWidth is the width of the target band.
func (c Config) bandWidth() float64 { return c.Target.Max - c.Target.Min }
