package clusterenv

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/sim"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

// Result is one policy's run of one scenario in `meridian sim`'s
// simulator.
type Result struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Policy   string `json:"policy"`
	// MaxPendingFraction, MeanPendingFraction and MaxPendingReplicas are
	// the simulator's (replicas asked for and not Running).
	MaxPendingFraction  float64 `json:"maxPendingFraction"`
	MeanPendingFraction float64 `json:"meanPendingFraction"`
	MaxPendingReplicas  int     `json:"maxPendingReplicas"`
	// CloudCPUHours and CloudCost are the cloud nodes paid for.
	CloudCPUHours float64 `json:"cloudCPUHours"`
	CloudCost     float64 `json:"cloudCost"`
	// Imbalance is the mean over samples of the standard deviation of the
	// member clusters' CPU allocation (assigned over allocatable).
	Imbalance float64 `json:"imbalance"`
	// Decisions and the wall time of one at p50 and p99, in microseconds.
	Decisions   int     `json:"decisions"`
	DecisionP50 float64 `json:"decisionP50Micros"`
	DecisionP99 float64 `json:"decisionP99Micros"`
	Series      Series  `json:"series"`
}

// Series are the samples the report charts.
type Series struct {
	Minutes         []float64 `json:"minutes"`
	PendingFraction []float64 `json:"pendingFraction"`
	CloudPaidCores  []float64 `json:"cloudPaidCores"`
}

// EvalPolicy is how every policy of an evaluation places: with
// substitution and bursting (as seed 001's mck8s), the reactive cloud
// provisioner, and no re-scheduler, so that only the ranking differs.
func EvalPolicy(name, placement string) scenario.Policy {
	return scenario.Policy{Name: name, Placement: placement, Substitution: true, Bursting: true, Provisioning: "Reactive",
		TargetUtilization: provision.DefaultTargetUtilization, TrendWindow: provision.DefaultTrendWindow}
}

// Evaluate runs sc for seed in the simulator of `meridian sim` with
// WorstFit, BestFit and the learned plugin on m, every policy with
// EvalPolicy's settings. The learned run uses NewFramework(PolicyLearned,
// m), which serves its profile under the WorstFit policy, as the
// simulator's placer.
func Evaluate(ctx context.Context, sc *scenario.Scenario, seed uint64, m *learn.ClusterModel, progress func(sim.Progress)) ([]Result, error) {
	if sc.Cloud == nil {
		return nil, fmt.Errorf("scenario %s has no cloud: the evaluation measures the cloud the policies burst to", sc.Name)
	}
	base := *sc
	base.Policies = []scenario.Policy{EvalPolicy(PolicyWorstFit, PolicyWorstFit), EvalPolicy(PolicyBestFit, PolicyBestFit)}
	fits, err := sim.Run(ctx, &base, sim.Options{Seed: &seed, Progress: progress})
	if err != nil {
		return nil, err
	}
	fw, err := NewFramework(PolicyLearned, m)
	if err != nil {
		return nil, err
	}
	withModel := *sc
	withModel.Policies = []scenario.Policy{EvalPolicy(PolicyLearned, string(slot))}
	lr, err := sim.Run(ctx, &withModel, sim.Options{Seed: &seed, Placer: fw, Progress: progress})
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, pr := range slices.Concat(lr.Policies, fits.Policies) {
		out = append(out, result(sc.Name, seed, &pr))
	}
	return out, nil
}

func result(name string, seed uint64, pr *sim.PolicyResult) Result {
	r := Result{
		Scenario: name, Seed: seed, Policy: pr.Policy,
		MaxPendingFraction: pr.MaxPendingFraction, MeanPendingFraction: pr.MeanPendingFraction, MaxPendingReplicas: pr.MaxPendingReplicas,
		CloudCPUHours: pr.CloudCPUHours, CloudCost: pr.CloudCost,
		Decisions: pr.Decisions, DecisionP50: pr.DecisionP50Seconds * 1e6, DecisionP99: pr.DecisionP99Seconds * 1e6,
	}
	s := pr.Series
	if s == nil {
		return r
	}
	r.Series = Series{Minutes: s.Minutes, PendingFraction: s.PendingFraction, CloudPaidCores: s.CloudPaidCores}
	cloud := map[string]bool{}
	for _, c := range pr.Clusters {
		cloud[c.Cluster] = c.Cloud
	}
	var sum float64
	for k := range s.Minutes {
		var u []float64
		for i, name := range s.Clusters {
			if cloud[name] || s.AllocatableCores[i][k] <= 0 {
				continue
			}
			u = append(u, s.AssignedCores[i][k]/s.AllocatableCores[i][k])
		}
		sum += stddev(u)
	}
	if len(s.Minutes) > 0 {
		r.Imbalance = sum / float64(len(s.Minutes))
	}
	return r
}

func stddev(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var m, m2 float64
	for _, x := range v {
		m += x
		m2 += x * x
	}
	n := float64(len(v))
	m /= n
	return math.Sqrt(math.Max(0, m2/n-m*m))
}
