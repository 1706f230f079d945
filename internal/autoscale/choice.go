package autoscale

import "fmt"

// Source says which rule chose a count.
type Source string

// The sources of a Choice.
const (
	// SourceOptimizer is the optimizer's production advice.
	SourceOptimizer Source = "Optimizer"
	// SourceExploration is the optimizer's training advice, used when no
	// CPU target is configured.
	SourceExploration Source = "Exploration"
	// SourceCPU is the CPU utilization target (Algorithm 3).
	SourceCPU Source = "CPUTarget"
	// SourceNone keeps the current count: nothing usable was observed.
	SourceNone Source = "None"
)

// Advice is what the choice needs of the optimizer's advice.
type Advice struct {
	// Valid is false when the optimizer gives no usable advice (the seed's
	// rule in training, a failed query, no sample yet).
	Valid bool
	// Production is true once the optimizer is in production.
	Production bool
	Replicas   int32
	Reason     string
}

// ChoiceInput is what the optimizer mode observed at one interval.
type ChoiceInput struct {
	// Current is the replica count the workload asks for now.
	Current     int32
	MinReplicas int32
	MaxReplicas int32
	// Advice is the optimizer's advice; nil when there is none this
	// interval (its queries failed).
	Advice *Advice
	// CPU is the CPU target's recommendation (cool-down applied); nil when
	// no CPU target is configured or no replica reports CPU metrics.
	CPU *Recommendation
	// CPUConfigured is true when spec.metrics has a CPU target, even if its
	// metrics are missing now: then exploration does not scale in its place.
	CPUConfigured bool
}

// Choice is the count the optimizer mode sets and why.
type Choice struct {
	Desired int32
	Source  Source
	Reason  string
}

// Choose is the optimizer mode's scaling rule. Valid production advice
// wins; before production, or when the advice is missing or invalid, the
// CPU target decides; without a CPU target, training follows the
// optimizer's exploration (bounded by the optimizer itself); with nothing
// usable the count stays. Every result is clamped to [MinReplicas,
// MaxReplicas]. Choose is pure.
func Choose(in ChoiceInput) Choice {
	a := in.Advice
	var c Choice
	switch {
	case a != nil && a.Valid && a.Production:
		c = Choice{Desired: a.Replicas, Source: SourceOptimizer, Reason: "optimizer advice: " + a.Reason}
	case in.CPU != nil:
		why := "optimizer in training"
		switch {
		case a == nil:
			why = "no optimizer advice this interval"
		case a.Production:
			why = "optimizer advice invalid: " + a.Reason
		}
		c = Choice{Desired: in.CPU.Desired, Source: SourceCPU, Reason: fmt.Sprintf("%s; CPU target: %s", why, in.CPU.Reason)}
	case a != nil && a.Valid && !a.Production && !in.CPUConfigured:
		c = Choice{Desired: a.Replicas, Source: SourceExploration, Reason: "optimizer training, no CPU target: " + a.Reason}
	default:
		c = Choice{Desired: in.Current, Source: SourceNone, Reason: "no usable advice or CPU metrics: replicas left as they are"}
	}
	switch {
	case c.Desired < in.MinReplicas:
		c.Desired, c.Reason = in.MinReplicas, fmt.Sprintf("%s (raised to minReplicas %d)", c.Reason, in.MinReplicas)
	case c.Desired > in.MaxReplicas:
		c.Desired, c.Reason = in.MaxReplicas, fmt.Sprintf("%s (lowered to maxReplicas %d)", c.Reason, in.MaxReplicas)
	}
	return c
}
