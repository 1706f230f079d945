package autoscale

import (
	"fmt"
	"math"
	"time"
)

// DefaultTolerance is the HPA's default tolerance.
const DefaultTolerance = 0.1

// DefaultCoolDown is seed 001's default scale-down cool-down.
const DefaultCoolDown = 10 * time.Minute

// Spec is a multi-cluster HPA's configuration.
type Spec struct {
	MinReplicas int32
	MaxReplicas int32
	// TargetUtilization is the target average CPU utilization of the
	// replicas, in percent of their request.
	TargetUtilization float64
	// Tolerance is the relative distance from the target within which the
	// count is kept; zero means DefaultTolerance.
	Tolerance float64
	// CoolDown is the scale-down stabilization window; zero means none.
	CoolDown time.Duration
}

// Validate reports the first field of s that is out of range.
func (s Spec) Validate() error {
	switch {
	case s.MinReplicas < 1:
		return fmt.Errorf("minReplicas %d: must be at least 1", s.MinReplicas)
	case s.MaxReplicas < s.MinReplicas:
		return fmt.Errorf("maxReplicas %d: must be at least minReplicas (%d)", s.MaxReplicas, s.MinReplicas)
	case s.TargetUtilization <= 0:
		return fmt.Errorf("targetUtilization %g: must be above 0", s.TargetUtilization)
	case s.Tolerance < 0 || s.Tolerance >= 1:
		return fmt.Errorf("tolerance %g: must be in [0, 1)", s.Tolerance)
	case s.CoolDown < 0:
		return fmt.Errorf("coolDown %v: must not be negative", s.CoolDown)
	}
	return nil
}

// Observation is what the autoscaler reads at one decision.
type Observation struct {
	// Current is the replica count the workload asks for now.
	Current int32
	// Ready is how many replicas run and report metrics.
	Ready int32
	// Unmeasured is how many replicas run and report no metrics yet.
	Unmeasured int32
	// Utilization is the average CPU utilization of the ready replicas, in
	// percent of their request.
	Utilization float64
}

// Reason says why a recommendation is what it is.
type Reason string

// The reasons of a recommendation.
const (
	ReasonWithinTolerance Reason = "WithinTolerance"
	ReasonScaleUp         Reason = "ScaleUp"
	ReasonScaleUpLimited  Reason = "ScaleUpLimited"
	ReasonScaleDown       Reason = "ScaleDown"
	ReasonCoolDown        Reason = "CoolDown"
	ReasonAtMinimum       Reason = "AtMinimum"
	ReasonAtMaximum       Reason = "AtMaximum"
	ReasonNoMetrics       Reason = "NoMetrics"
)

// Recommendation is the autoscaler's answer.
type Recommendation struct {
	Desired int32
	Reason  Reason
}

// Desired is Algorithm 3 with the HPA's tolerance, unready replicas and
// limits, without the cool-down: the count the metrics ask for now.
func Desired(s Spec, o Observation) Recommendation {
	tol := s.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}
	if o.Ready <= 0 {
		return clamp(s, o.Current, max(o.Current, s.MinReplicas), ReasonNoMetrics)
	}
	ratio := o.Utilization / s.TargetUtilization
	if ratio > 1 && o.Current > o.Ready {
		// Unready replicas count as idle when scaling up.
		ratio = o.Utilization * float64(o.Ready) / (s.TargetUtilization * float64(o.Current))
	}
	if math.Abs(ratio-1) <= tol {
		return clamp(s, o.Current, o.Current, ReasonWithinTolerance)
	}
	base := max(o.Ready, o.Current)
	if ratio < 1 {
		base = o.Ready
		if o.Unmeasured > 0 {
			// As Kubernetes' HPA does, replicas without metrics count as
			// using the target when scaling down: a new replica whose
			// first reading has not come yet must not halve the rest.
			base = o.Ready + o.Unmeasured
			ratio = (o.Utilization*float64(o.Ready) + s.TargetUtilization*float64(o.Unmeasured)) / (s.TargetUtilization * float64(base))
			if math.Abs(ratio-1) <= tol {
				return clamp(s, o.Current, o.Current, ReasonWithinTolerance)
			}
		}
	}
	want := int32(math.Ceil(ratio * float64(base)))
	reason := ReasonScaleDown
	if want > o.Current {
		reason = ReasonScaleUp
		if limit := max(2*o.Current, o.Current+4); want > limit {
			want, reason = limit, ReasonScaleUpLimited
		}
	} else if want == o.Current {
		reason = ReasonWithinTolerance
	}
	return clamp(s, o.Current, want, reason)
}

func clamp(s Spec, current, want int32, reason Reason) Recommendation {
	switch {
	case want < s.MinReplicas:
		return Recommendation{Desired: s.MinReplicas, Reason: ReasonAtMinimum}
	case want > s.MaxReplicas:
		return Recommendation{Desired: s.MaxReplicas, Reason: ReasonAtMaximum}
	}
	return Recommendation{Desired: want, Reason: reason}
}
