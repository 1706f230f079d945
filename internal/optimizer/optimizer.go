package optimizer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// historySize is how many advices an Optimizer remembers for its report.
const historySize = 500

// ErrNoSample is returned by Advise before the first sample.
var ErrNoSample = errors.New("no sample observed yet: POST /sample first")

// Optimizer holds one workload's knowledge base, models and advice state.
// It is not safe for concurrent use.
type Optimizer struct {
	cfg        Config
	samples    []Sample
	seen       int
	sinceTrain int
	model      *Model
	trainErr   error
	phase      Phase
	why        string
	state      State
	history    []Advice
}

// New returns an optimizer for cfg whose knowledge base starts with kb
// (oldest first; an existing knowledge base), of which the newest
// cfg.KnowledgeBaseSize samples are kept.
func New(cfg Config, kb []Sample) (*Optimizer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	for i, s := range kb {
		if err := cfg.ValidateSample(s); err != nil {
			return nil, fmt.Errorf("knowledge base sample %d: %w", i, err)
		}
	}
	o := &Optimizer{cfg: cfg, phase: PhaseTraining}
	o.samples = slices.Clone(kb[max(0, len(kb)-cfg.KnowledgeBaseSize):])
	o.seen = len(kb)
	o.why = o.progress()
	if len(o.samples) >= cfg.TrainingSamplesRequired {
		o.train()
	}
	return o, nil
}

// Config returns the optimizer's configuration.
func (o *Optimizer) Config() Config { return o.cfg }

// Samples returns the knowledge base, oldest first. The caller must not
// modify it.
func (o *Optimizer) Samples() []Sample { return o.samples }

// Model returns the current models, nil before the first training.
func (o *Optimizer) Model() *Model { return o.model }

// Phase returns the phase and why the optimizer is in it.
func (o *Optimizer) Phase() (Phase, string) { return o.phase, o.why }

// History returns the advices given, oldest first, at most the last 500.
func (o *Optimizer) History() []Advice { return o.history }

// Seen is how many samples were observed, including those the rolling
// knowledge base has dropped.
func (o *Optimizer) Seen() int { return o.seen }

// Observe adds s to the knowledge base and retrains when due. A sample
// that does not fit the configuration is refused with a *FieldError and
// changes nothing.
func (o *Optimizer) Observe(s Sample) error {
	if err := o.cfg.ValidateSample(s); err != nil {
		return err
	}
	s.Inputs = slices.Clone(s.Inputs)
	if len(o.samples) == o.cfg.KnowledgeBaseSize {
		o.samples = append(o.samples[:0], o.samples[1:]...)
	}
	o.samples = append(o.samples, s)
	o.seen++
	o.sinceTrain++
	if len(o.samples) >= o.cfg.TrainingSamplesRequired && (o.model == nil || o.sinceTrain >= o.cfg.RetrainEvery) {
		o.train()
	} else if o.model == nil {
		o.why = o.progress()
	}
	return nil
}

func (o *Optimizer) progress() string {
	return fmt.Sprintf("%d of %d samples required", len(o.samples), o.cfg.TrainingSamplesRequired)
}

// train refits the models and applies the phase rule.
func (o *Optimizer) train() {
	o.sinceTrain = 0
	m, err := Train(o.cfg, o.samples, o.model)
	if err != nil {
		o.trainErr = err
		o.why = err.Error()
		return
	}
	o.model, o.trainErr = m, nil
	n := len(o.samples)
	if o.cfg.Rule == RuleSeed {
		o.phase = PhaseProduction
		o.why = fmt.Sprintf("%d samples collected, %d required", n, o.cfg.TrainingSamplesRequired)
		return
	}
	e, limit := m.HoldoutError, o.cfg.MaxHoldoutError
	switch {
	case math.IsNaN(e):
		o.phase, o.why = PhaseTraining, fmt.Sprintf("%d samples, too few to hold any out", n)
	case o.phase == PhaseTraining && e <= limit:
		o.phase, o.why = PhaseProduction, fmt.Sprintf("held-out error %.3f of the band's width is at most %.3f after %d samples", e, limit, n)
	case o.phase == PhaseProduction && e > 1.5*limit:
		o.phase, o.why = PhaseTraining, fmt.Sprintf("held-out error %.3f of the band's width exceeds 1.5 × %.3f: back to training", e, limit)
	case o.phase == PhaseProduction:
		o.why = fmt.Sprintf("held-out error %.3f of the band's width (leave production above %.3f)", e, 1.5*limit)
	default:
		o.why = fmt.Sprintf("held-out error %.3f of the band's width is above %.3f after %d samples", e, limit, n)
	}
}

// Reliability is the advice's reliability in [0, 100]: from the held-out
// error, or in RuleSeed from the in-sample correlation.
func (o *Optimizer) Reliability() float64 {
	if o.model == nil {
		return 0
	}
	r := 1 - o.model.HoldoutError
	if o.cfg.Rule == RuleSeed {
		r = o.model.InSampleCorrelation
	}
	if math.IsNaN(r) {
		return 0
	}
	return 100 * max(0, min(1, r))
}

// Status is the learning's status for Decide.
func (o *Optimizer) Status() Status {
	st := Status{Phase: o.phase, Reliability: o.Reliability(), Samples: o.seen, Why: o.why}
	if o.model != nil {
		st.Predictor = o.model
		if o.cfg.Rule != RuleSeed {
			st.Residuals = o.model.HoldoutResiduals
		}
	}
	return st
}

// State returns the advice state: the last count advised and when it
// changed, the freeze interval's clock.
func (o *Optimizer) State() State { return o.state }

// Resume sets the advice state, as a restarted controller or advisor found
// it kept, so the freeze interval holds across the restart: the next
// advice keeps s.Replicas until Config.FreezeInterval has passed since
// s.ChangedAt.
func (o *Optimizer) Resume(s State) { o.state = s }

// Advise decides from the last sample at time now, remembers the advice and
// returns it.
func (o *Optimizer) Advise(now time.Time) (Advice, error) {
	if len(o.samples) == 0 {
		return Advice{Phase: o.phase, ErrorMsg: ErrNoSample.Error(), Time: now}, ErrNoSample
	}
	a, next := Decide(o.cfg, o.Status(), o.samples[len(o.samples)-1], o.state, now)
	o.state = next
	if len(o.history) == historySize {
		o.history = append(o.history[:0], o.history[1:]...)
	}
	o.history = append(o.history, a)
	return a, nil
}
