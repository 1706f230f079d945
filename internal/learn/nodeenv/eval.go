package nodeenv

import (
	"time"
)

// Result is one policy's run of one scenario.
type Result struct {
	Policy  string  `json:"policy"`
	Nodes   int     `json:"nodes"`
	Pattern string  `json:"pattern"`
	Seed    uint64  `json:"seed"`
	Metrics Metrics `json:"metrics"`
	// DecisionMicros is the mean wall-clock time of Choose per decision.
	DecisionMicros float64 `json:"decisionMicros"`
	// Series samples the active nodes and cluster power over time, for the
	// report's charts.
	Series []Sample `json:"series"`
}

// Sample is the cluster at one time.
type Sample struct {
	Minutes     float64 `json:"minutes"`
	ActiveNodes int     `json:"activeNodes"`
	Watts       float64 `json:"watts"`
}

// Run plays sc with p, sampling the series every step of simulated time.
func Run(sc Scenario, p Policy, step time.Duration) (Result, error) {
	s, err := NewSim(sc)
	if err != nil {
		return Result{}, err
	}
	res := Result{Policy: p.Name(), Nodes: sc.Nodes, Pattern: sc.Pattern, Seed: sc.Seed}
	var spent time.Duration
	nextSample := time.Duration(0)
	sample := func() {
		for nextSample <= s.Now() {
			res.Series = append(res.Series, Sample{Minutes: nextSample.Minutes(), ActiveNodes: s.active, Watts: s.power})
			nextSample += step
		}
	}
	for s.Next() {
		sample()
		start := time.Now()
		i := p.Choose(s.Pod(), s.Nodes(), s.Mask())
		spent += time.Since(start)
		s.Place(i)
	}
	sample()
	res.Metrics = s.M
	if s.M.Decisions > 0 {
		res.DecisionMicros = float64(spent.Microseconds()) / float64(s.M.Decisions)
	}
	return res, nil
}
