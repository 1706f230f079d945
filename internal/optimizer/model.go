package optimizer

import (
	"fmt"
	"math"
	"slices"
)

// Model is the learned knowledge: one regression per input metric, the
// network from metrics to target, and how well the chain predicted held-out
// samples.
type Model struct {
	Regressions []Regression `json:"regressions"`
	Net         *MLP         `json:"net"`
	// Samples is how many samples the model was fitted on.
	Samples int `json:"samples"`
	// HoldoutRMSE is the root mean square error of the chain's predictions
	// of held-out targets, in the target's unit; NaN when there was too
	// little data to hold any out.
	HoldoutRMSE float64 `json:"holdout_rmse"`
	// HoldoutError is HoldoutRMSE divided by the band's width.
	HoldoutError float64 `json:"holdout_error"`
	// HoldoutPairs is how many held-out predictions HoldoutRMSE averages.
	HoldoutPairs int `json:"holdout_pairs"`
	// HoldoutResiduals are the held-out targets less their predictions,
	// ascending: the error a one-interval-ahead advice makes, load changes
	// between intervals included.
	HoldoutResiduals []float64 `json:"holdout_residuals,omitempty"`
	// InSampleCorrelation is the Pearson correlation of the network's
	// predictions with the observed targets on the training data, which is
	// what the seed reports as reliability.
	InSampleCorrelation float64 `json:"in_sample_correlation"`
}

// PredictTarget returns the target expected when the workload observed in
// from runs at replicas instead of from.Replicas.
func (m *Model) PredictTarget(from Sample, replicas int) float64 {
	var buf [64]float64
	x := buf[:0]
	for i, r := range m.Regressions {
		x = append(x, r.Predict(from.Inputs[i], from.Replicas, replicas))
	}
	return m.Net.Predict(x)
}

// PredictInput returns metric i expected when the workload observed in from
// runs at replicas.
func (m *Model) PredictInput(i int, from Sample, replicas int) float64 {
	return m.Regressions[i].Predict(from.Inputs[i], from.Replicas, replicas)
}

// minTrainSamples is the fewest samples Train fits on.
const minTrainSamples = 8

// Train fits the models on samples (oldest first): first on all but the
// newest cfg.HoldoutFraction to measure the held-out error of the whole
// chain, then on every sample for the model returned. prev, if not nil,
// warm-starts the network. Train is deterministic for cfg.Seed.
func Train(cfg Config, samples []Sample, prev *Model) (*Model, error) {
	if len(samples) < minTrainSamples {
		return nil, fmt.Errorf("failed to train: %d samples, want at least %d", len(samples), minTrainSamples)
	}
	var warm *MLP
	if prev != nil {
		warm = prev.Net
	}
	cut := len(samples) - int(math.Ceil(cfg.HoldoutFraction*float64(len(samples))))
	held, err := fit(cfg, samples[:cut], warm)
	if err != nil {
		return nil, err
	}
	// Held-out pairs: each held-out sample predicted from the one before it,
	// which may be the last training sample.
	pairs := 0
	var residuals []float64
	for i := max(cut, 1); i < len(samples); i++ {
		e := cfg.clipTarget(samples[i].Target) - held.PredictTarget(samples[i-1], samples[i].Replicas)
		pairs++
		residuals = append(residuals, e)
	}
	slices.Sort(residuals)
	m, err := fit(cfg, samples, held.Net)
	if err != nil {
		return nil, err
	}
	m.HoldoutPairs = pairs
	m.HoldoutResiduals = residuals
	m.HoldoutRMSE = math.NaN()
	m.HoldoutError = math.NaN()
	if pairs > 0 {
		m.HoldoutRMSE = trimmedRMS(residuals)
		m.HoldoutError = m.HoldoutRMSE / cfg.bandWidth()
	}
	return m, nil
}

// fit fits the regressions on consecutive pairs and the network on every
// sample.
func fit(cfg Config, samples []Sample, warm *MLP) (*Model, error) {
	m := &Model{Samples: len(samples), Regressions: make([]Regression, len(cfg.Inputs))}
	pairs := len(samples) - 1
	before := make([]float64, pairs)
	after := make([]float64, pairs)
	n := make([]int, pairs)
	next := make([]int, pairs)
	for k := range cfg.Inputs {
		for i := range pairs {
			before[i], after[i] = samples[i].Inputs[k], samples[i+1].Inputs[k]
			n[i], next[i] = samples[i].Replicas, samples[i+1].Replicas
		}
		r, err := FitRegression(before, after, n, next)
		if err != nil {
			return nil, fmt.Errorf("failed to fit the regression of input %q: %w", cfg.Inputs[k], err)
		}
		m.Regressions[k] = r
	}
	xs := make([][]float64, len(samples))
	ys := make([]float64, len(samples))
	for i, s := range samples {
		xs[i], ys[i] = s.Inputs, cfg.clipTarget(s.Target)
	}
	net, err := FitMLP(xs, ys, cfg.Hidden, cfg.Seed, warm)
	if err != nil {
		return nil, err
	}
	m.Net = net
	pred := make([]float64, len(samples))
	for i, x := range xs {
		pred[i] = net.Predict(x)
	}
	m.InSampleCorrelation = pearson(pred, ys)
	return m, nil
}

// pearson is the correlation of a and b, 0 when either is constant.
func pearson(a, b []float64) float64 {
	ma, sa := meanStdRaw(a)
	mb, sb := meanStdRaw(b)
	if sa == 0 || sb == 0 {
		return 0
	}
	c := 0.0
	for i := range a {
		c += (a[i] - ma) * (b[i] - mb)
	}
	return c / float64(len(a)) / (sa * sb)
}

func meanStdRaw(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

// targetCeilingWidths is how far above the band's maximum, in band widths,
// targets are clipped before the network sees them.
const targetCeilingWidths = 1

// clipTarget clips a target at the band's maximum plus targetCeilingWidths
// band widths. The advice needs the target precisely inside the band and only
// the direction beyond it; unclipped, a few overloaded intervals (a latency
// at its timeout, ten times the band) dominate the squared error and the
// standardization, and the network gives up precision inside the band to
// fit them. The held-out error is measured against clipped targets too, so it
// judges what the advice uses.
func (c Config) clipTarget(v float64) float64 {
	return math.Min(v, c.Target.Max+targetCeilingWidths*c.bandWidth())
}

// holdoutTrim is the fraction of the held-out residuals, the largest in
// magnitude, that the held-out error leaves out.
const holdoutTrim = 0.05

// trimmedRMS is the root mean square of residuals without the largest
// holdoutTrim of them in magnitude. A load that jumps between two intervals
// (a burst starting or ending) cannot be predicted from the interval before
// by any model; the few residuals it leaves are as large as the band, and
// they sent a good model back to training in the evaluation (five of 120
// residuals moved the error from 0.16 to 0.38 of the band's width). The
// advice still weighs every residual (Status.Residuals).
func trimmedRMS(residuals []float64) float64 {
	abs := make([]float64, len(residuals))
	for i, r := range residuals {
		abs[i] = math.Abs(r)
	}
	slices.Sort(abs)
	keep := abs[:len(abs)-int(math.Floor(holdoutTrim*float64(len(abs))))]
	var sq float64
	for _, a := range keep {
		sq += a * a
	}
	return math.Sqrt(sq / float64(len(keep)))
}
