package clusterenv

import (
	"context"
	"fmt"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

// Run plays sc's workload for seed with fw deciding (NewFramework), and
// returns the metrics and the mean wall time of a decision.
func Run(sc *scenario.Scenario, seed uint64, fw *placement.Framework) (Metrics, time.Duration, error) {
	s, err := NewSim(sc, seed)
	if err != nil {
		return Metrics{}, 0, err
	}
	var spent time.Duration
	for s.Next() {
		start := time.Now()
		d, err := fw.Place(context.Background(), s.Snapshot(), s.Workload())
		spent += time.Since(start)
		if err != nil {
			return Metrics{}, 0, fmt.Errorf("failed to place at %v: %w", s.Now(), err)
		}
		if err := s.Apply(d); err != nil {
			return Metrics{}, 0, err
		}
	}
	var per time.Duration
	if s.M.Decisions > 0 {
		per = spent / time.Duration(s.M.Decisions)
	}
	return s.M, per, nil
}
