package autoscale

import "time"

type recommendation struct {
	at      time.Time
	desired int32
}

// Autoscaler is one multi-cluster HPA: Desired plus the scale-down
// cool-down, which needs the recommendations of the last window.
type Autoscaler struct {
	Spec Spec
	recs []recommendation
}

// New returns an autoscaler for s.
func New(s Spec) *Autoscaler { return &Autoscaler{Spec: s} }

// Recommend returns the count to set now. Scale-up is immediate; scale-down
// goes no lower than the highest recommendation within the cool-down.
func (a *Autoscaler) Recommend(now time.Time, o Observation) Recommendation {
	r := Desired(a.Spec, o)
	cutoff := now.Add(-a.Spec.CoolDown)
	kept := a.recs[:0]
	for _, rec := range a.recs {
		if rec.at.After(cutoff) {
			kept = append(kept, rec)
		}
	}
	a.recs = append(kept, recommendation{at: now, desired: r.Desired})
	if r.Desired >= o.Current {
		return r
	}
	highest := r.Desired
	for _, rec := range a.recs {
		highest = max(highest, rec.desired)
	}
	if highest > r.Desired {
		return Recommendation{Desired: min(highest, o.Current), Reason: ReasonCoolDown}
	}
	return r
}
