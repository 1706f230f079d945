package nodeenv

import (
	"fmt"
	"strconv"
	"time"

	"github.com/meridian-dev/meridian/internal/learn"
)

// Curriculum is the scenarios a model trains on: episode e is a cluster of
// MinNodes to MaxNodes nodes (drawn from the episode's seed), playing the
// patterns in turn for Duration.
type Curriculum struct {
	MinNodes, MaxNodes int
	Duration           time.Duration
	SensitiveShare     float64
	// Seed is the first episode's scenario seed; episode e uses Seed+e.
	// Evaluate on seeds outside [Seed, Seed+episodes).
	Seed uint64
}

// DefaultCurriculum trains at 10-20 nodes on 20-minute episodes.
func DefaultCurriculum() Curriculum {
	return Curriculum{MinNodes: 10, MaxNodes: 20, Duration: 20 * time.Minute, SensitiveShare: 0.5, Seed: 1_000_000}
}

// Scenario returns episode e's scenario.
func (c Curriculum) Scenario(e int) Scenario {
	seed := c.Seed + uint64(e)
	span := uint64(c.MaxNodes - c.MinNodes + 1)
	return Scenario{
		Nodes:          c.MinNodes + int((seed*0x9e3779b97f4a7c15>>33)%span),
		Pattern:        Patterns[e%len(Patterns)],
		Duration:       c.Duration,
		Seed:           seed,
		SensitiveShare: c.SensitiveShare,
	}
}

// Train trains a new model for the reward kind on the curriculum and
// records how in its Info.
func Train(kind string, cfg learn.TrainConfig, cur Curriculum, reportEvery int, report func(learn.Progress)) (*learn.Model, error) {
	if err := ValidateReward(kind); err != nil {
		return nil, err
	}
	if cur.MinNodes <= 0 || cur.MaxNodes < cur.MinNodes {
		return nil, fmt.Errorf("nodes %d-%d: need 0 < min <= max", cur.MinNodes, cur.MaxNodes)
	}
	m, err := learn.NewModel(cfg.Hidden, cfg.Seed)
	if err != nil {
		return nil, err
	}
	m.Reward = kind
	episodes := 0
	err = learn.Train(m, cfg, func(e int) (learn.Env, error) {
		episodes = e + 1
		return NewEnv(cur.Scenario(e), kind)
	}, reportEvery, report)
	if err != nil {
		return nil, err
	}
	m.Info = map[string]string{
		"steps": strconv.Itoa(cfg.Steps), "seed": strconv.FormatUint(cfg.Seed, 10),
		"gamma": fmt.Sprint(cfg.Gamma), "lr": fmt.Sprint(cfg.LR), "batch": strconv.Itoa(cfg.Batch),
		"replay": strconv.Itoa(cfg.Replay), "targetSync": strconv.Itoa(cfg.TargetSync),
		"nodes":         fmt.Sprintf("%d-%d", cur.MinNodes, cur.MaxNodes),
		"episodeLength": cur.Duration.String(),
		"scenarioSeeds": fmt.Sprintf("%d-%d", cur.Seed, cur.Seed+uint64(episodes)-1),
	}
	return m, nil
}
