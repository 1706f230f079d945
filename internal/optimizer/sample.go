package optimizer

import (
	"fmt"
	"math"
	"time"
)

// Sample is one observation: the replica count, the system metrics (in the
// order of Config.Inputs) and the target, at one time.
type Sample struct {
	Time     time.Time `json:"time"`
	Replicas int       `json:"replicas"`
	Inputs   []float64 `json:"inputs"`
	Target   float64   `json:"target"`
}

func sampleError(field string, value any, valid string) error {
	return &FieldError{Field: field, Value: value, Valid: valid, kind: ErrInvalidSample}
}

// ValidateSample returns a *FieldError for the first field of s that does
// not fit c.
func (c Config) ValidateSample(s Sample) error {
	if s.Replicas < 1 {
		return sampleError("replicas", s.Replicas, "must be at least 1")
	}
	if len(s.Inputs) != len(c.Inputs) {
		return sampleError("inputs", fmt.Sprintf("%d values", len(s.Inputs)), fmt.Sprintf("must hold one value per input metric (%d)", len(c.Inputs)))
	}
	for i, v := range s.Inputs {
		if !plausible(v) {
			return sampleError("inputs."+c.Inputs[i], v, validValue)
		}
	}
	if !plausible(s.Target) {
		return sampleError("target."+c.Target.Name, s.Target, validValue)
	}
	return nil
}

// maxMagnitude bounds a metric's value: squares of larger values overflow
// the models' arithmetic, and no metric worth learning from is that large.
const maxMagnitude = 1e15

const validValue = "must be a finite number of magnitude at most 1e15"

func plausible(v float64) bool {
	return !math.IsNaN(v) && math.Abs(v) <= maxMagnitude
}
