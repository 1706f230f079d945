package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/clusterenv"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

// The levels of `meridian learn train` and `eval`.
const (
	levelNode    = "node"
	levelCluster = "cluster"
)

func invalidLevel(level string) error {
	return fmt.Errorf("invalid --level %q: must be %s or %s", level, levelNode, levelCluster)
}

// runCluster trains a cluster model: the flags that concern nodes
// (--reward, --min-nodes, --max-nodes) do not apply, and --steps and
// --scenario-seed default to the cluster curriculum's.
func (o *learnTrainOptions) runCluster(cmd *cobra.Command) error {
	f := cmd.Flags()
	for _, name := range []string{"reward", "min-nodes", "max-nodes"} {
		if f.Changed(name) {
			return fmt.Errorf("invalid --%s: it concerns node models, not --level %s", name, levelCluster)
		}
	}
	cfg := clusterenv.DefaultTrainConfig()
	cfg.Seed = o.cfg.Seed
	if f.Changed("steps") {
		cfg.Steps = o.cfg.Steps
		cfg.Replay = max(cfg.Batch+1, min(cfg.Replay, cfg.Steps))
		cfg.WarmUp = min(cfg.WarmUp, cfg.Steps/10)
	}
	cur := clusterenv.DefaultCurriculum()
	if f.Changed("scenario-seed") {
		cur.FirstSeed = o.cur.Seed
	}
	stderr := cmd.ErrOrStderr()
	start := time.Now()
	report := func(p learn.Progress) {
		if !o.quiet {
			fmt.Fprintf(stderr, "learn: step %d/%d episode %d epsilon %.2f mean reward %.4f loss %.5f (%s)\n",
				p.Step, cfg.Steps, p.Episode, p.Epsilon, p.MeanReward, p.Loss, time.Since(start).Round(time.Second))
		}
	}
	every := o.every
	if !f.Changed("progress-every") {
		every = 1000
	}
	m, err := clusterenv.Train(cfg, cur, every, report)
	if err != nil {
		return err
	}
	if err := m.Save(o.out); err != nil {
		return err
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "learn: wrote %s (cluster model, %s, scenario seeds %s) in %s\n", o.out, m.Reward, m.Info["scenarioSeeds"], time.Since(start).Round(time.Second))
	}
	return nil
}

// runCluster compares a cluster model with WorstFit and BestFit in the
// multi-cluster simulator on each scenario.
func (o *learnEvalOptions) runCluster(cmd *cobra.Command) error {
	if o.format != "table" && o.format != "json" {
		return fmt.Errorf("invalid --format %q: want table or json", o.format)
	}
	for _, name := range []string{"nodes", "pattern", "duration", "latency-sensitive"} {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("invalid --%s: it concerns node models, not --level %s (the scenarios set the clusters and the run)", name, levelCluster)
		}
	}
	if len(o.models) != 1 {
		return fmt.Errorf("invalid --model: --level %s compares one model, got %d", levelCluster, len(o.models))
	}
	m, err := learn.LoadClusterModel(o.models[0])
	if err != nil {
		return err
	}
	if lo, hi, ok := clusterenv.SeedsOf(m); ok && o.seed >= lo && o.seed <= hi {
		return fmt.Errorf("invalid --seed %d: model %s was trained on scenario seeds %d-%d; evaluate on another", o.seed, o.models[0], lo, hi)
	}
	stderr := cmd.ErrOrStderr()
	var results []clusterenv.Result
	for _, name := range o.scenarios {
		sc, err := scenario.Load(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "learn: %s, seed %d: Learned, WorstFit, BestFit\n", sc.Name, o.seed)
		rs, err := clusterenv.Evaluate(cmd.Context(), sc, o.seed, m, nil)
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}
	if o.html != "" {
		f, err := os.Create(o.html)
		if err != nil {
			return fmt.Errorf("failed to create the HTML report: %w", err)
		}
		err = clusterenv.HTML(f, "meridian learn eval "+strings.Join(os.Args[min(3, len(os.Args)):], " "), results)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("failed to write %s: %w", o.html, err)
		}
	}
	if o.format == "json" {
		return clusterenv.JSON(cmd.OutOrStdout(), results)
	}
	return clusterenv.Table(cmd.OutOrStdout(), results)
}
