package clusterenv

import (
	"fmt"
	"strconv"
	"time"

	"github.com/meridian-dev/meridian/internal/learn"
)

// Curriculum is what training runs on: one TrainingScenario per episode,
// drawn from consecutive seeds.
type Curriculum struct {
	// FirstSeed is the seed of the first episode's scenario and workload;
	// episode i uses FirstSeed+i.
	FirstSeed uint64
	// Window is the workload's arrival window; a run lasts 1.5 windows.
	Window time.Duration
}

// DefaultCurriculum starts at seed 2,000,000, far from the seeds an
// evaluation is run with, with 30-minute windows.
func DefaultCurriculum() Curriculum {
	return Curriculum{FirstSeed: 2_000_000, Window: 30 * time.Minute}
}

// DefaultTrainConfig are the hyper-parameters of `meridian learn train
// --level cluster`: learn.DefaultTrainConfig's, with fewer steps (a
// decision moves a whole workload) and the cluster model's widths.
func DefaultTrainConfig() learn.TrainConfig {
	cfg := learn.DefaultTrainConfig()
	cfg.Hidden = learn.DefaultClusterHidden
	cfg.Steps = 30000
	cfg.Replay = 30000
	return cfg
}

// Train trains a new cluster model with cfg on cur and records how in its
// Info.
func Train(cfg learn.TrainConfig, cur Curriculum, reportEvery int, report func(learn.Progress)) (*learn.ClusterModel, error) {
	m, err := learn.NewClusterModel(cfg.Hidden, cfg.Seed)
	if err != nil {
		return nil, err
	}
	m.Reward = RewardCloudPending
	episodes := 0
	err = learn.TrainClusterModel(m, cfg, func(episode int) (learn.Env, error) {
		episodes = episode + 1
		seed := cur.FirstSeed + uint64(episode)
		return NewEnv(TrainingScenario(seed, cur.Window), seed, m)
	}, reportEvery, report)
	if err != nil {
		return nil, err
	}
	m.Info = map[string]string{
		"steps": strconv.Itoa(cfg.Steps), "seed": strconv.FormatUint(cfg.Seed, 10),
		"gamma": strconv.FormatFloat(cfg.Gamma, 'g', -1, 64), "lr": strconv.FormatFloat(cfg.LR, 'g', -1, 64),
		"batch": strconv.Itoa(cfg.Batch), "replay": strconv.Itoa(cfg.Replay), "warmUp": strconv.Itoa(cfg.WarmUp),
		"targetSync": strconv.Itoa(cfg.TargetSync), "hidden": fmt.Sprint(cfg.Hidden),
		"scenarios":     "clusterenv.TrainingScenario",
		"scenarioSeeds": fmt.Sprintf("%d-%d", cur.FirstSeed, cur.FirstSeed+uint64(episodes)-1),
		"window":        cur.Window.String(),
		"pendingWeight": strconv.FormatFloat(PendingWeight, 'g', -1, 64),
		"episodes":      strconv.Itoa(episodes),
	}
	return m, nil
}

// SeedsOf returns the range of scenario seeds m was trained on, from its
// Info, and false when it does not say.
func SeedsOf(m *learn.ClusterModel) (first, last uint64, ok bool) {
	var a, b uint64
	if _, err := fmt.Sscanf(m.Info["scenarioSeeds"], "%d-%d", &a, &b); err != nil {
		return 0, 0, false
	}
	return a, b, true
}
