package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/nodeenv"
)

func newLearnCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "learn",
		Short: "Train and evaluate the learned node scorer (a DeepSets DQN) in the simulator",
		Long: `Train a deep Q-network that scores nodes for a pod, in a simulated cluster of
10-20 nodes, and compare it with kube-scheduler's LeastAllocated, MostAllocated
and BalancedAllocation scoring on a held-out trace at any number of nodes.

See docs/learn.md for the model, the features, the rewards and the power model.`,
	}
	cmd.AddCommand(newLearnTrainCommand(), newLearnEvalCommand())
	return cmd
}

type learnTrainOptions struct {
	level  string
	reward string
	out    string
	cfg    learn.TrainConfig
	cur    nodeenv.Curriculum
	every  int
	quiet  bool
}

func newLearnTrainCommand() *cobra.Command {
	o := &learnTrainOptions{cfg: learn.DefaultTrainConfig(), cur: nodeenv.DefaultCurriculum()}
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Train a model with double DQN and write it to a file",
		Example: `  meridian learn train --reward EL-RL --out el-rl.json
  meridian learn train --reward EE --steps 5000 --out ee.json
  meridian learn train --level cluster --out clusters.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch o.level {
			case levelNode:
				return o.run(cmd.ErrOrStderr())
			case levelCluster:
				return o.runCluster(cmd)
			}
			return invalidLevel(o.level)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.level, "level", levelNode, "what the model scores: node (a cluster's nodes for a pod) or cluster (member clusters for a workload; see docs/learn-clusters.md)")
	f.StringVar(&o.reward, "reward", nodeenv.RewardELRL, "reward: "+strings.Join(nodeenv.Rewards, ", "))
	f.StringVar(&o.out, "out", "model.json", "model file to write")
	f.IntVar(&o.cfg.Steps, "steps", o.cfg.Steps, "decisions to train on")
	f.Uint64Var(&o.cfg.Seed, "seed", o.cfg.Seed, "seed of the weights and of exploration")
	f.Uint64Var(&o.cur.Seed, "scenario-seed", o.cur.Seed, "seed of the first training episode's scenario (episode e uses it plus e)")
	f.IntVar(&o.cur.MinNodes, "min-nodes", o.cur.MinNodes, "fewest nodes of a training cluster")
	f.IntVar(&o.cur.MaxNodes, "max-nodes", o.cur.MaxNodes, "most nodes of a training cluster")
	f.IntVar(&o.every, "progress-every", 2500, "decisions between progress lines on stderr")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not report progress")
	return cmd
}

func (o *learnTrainOptions) run(stderr io.Writer) error {
	if err := nodeenv.ValidateReward(o.reward); err != nil {
		return fmt.Errorf("invalid --reward: %w", err)
	}
	start := time.Now()
	report := func(p learn.Progress) {
		if !o.quiet {
			fmt.Fprintf(stderr, "learn: step %d/%d episode %d epsilon %.2f mean reward %.4f loss %.5f (%s)\n",
				p.Step, o.cfg.Steps, p.Episode, p.Epsilon, p.MeanReward, p.Loss, time.Since(start).Round(time.Second))
		}
	}
	m, err := nodeenv.Train(o.reward, o.cfg, o.cur, o.every, report)
	if err != nil {
		return err
	}
	if err := m.Save(o.out); err != nil {
		return err
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "learn: wrote %s (%s, scenario seeds %s) in %s\n", o.out, m.Reward, m.Info["scenarioSeeds"], time.Since(start).Round(time.Second))
	}
	return nil
}

type learnEvalOptions struct {
	level     string
	models    []string
	nodes     []int
	patterns  []string
	seed      uint64
	duration  time.Duration
	share     float64
	format    string
	html      string
	scenarios []string
}

func newLearnEvalCommand() *cobra.Command {
	o := &learnEvalOptions{}
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Compare models with kube-scheduler's scoring on the same held-out trace",
		Long: `Play the same scenario (cluster, latencies and load, drawn from --seed) with
every model and with kube-scheduler's LeastAllocated, MostAllocated and
BalancedAllocation scoring, at each cluster size. The hard latency limit is the
scheduler's filter for every policy. Use a seed the models were not trained on
(their file records the scenario seeds of training).`,
		Example: `  meridian learn eval --model el-rl.json
  meridian learn eval --model el-rl.json --model ee.json --nodes 10,100,1000 --html report.html
  meridian learn eval --model el-rl.json --format json
  meridian learn eval --level cluster --model clusters.json --seed 7 --html clusters.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch o.level {
			case levelNode:
				if cmd.Flags().Changed("scenario") {
					return fmt.Errorf("invalid --scenario: it concerns --level %s", levelCluster)
				}
				return o.run(cmd)
			case levelCluster:
				return o.runCluster(cmd)
			}
			return invalidLevel(o.level)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.level, "level", levelNode, "what the models score: node or cluster (member clusters, compared with WorstFit and BestFit in the multi-cluster simulator)")
	f.StringSliceVar(&o.scenarios, "scenario", []string{"vi-b", "heavy-tail"}, "with --level cluster: built-in scenarios or scenario files of `meridian sim` (they need a cloud)")
	f.StringSliceVar(&o.models, "model", nil, "model file (repeat for several)")
	f.IntSliceVar(&o.nodes, "nodes", []int{10, 100, 1000}, "cluster sizes")
	f.StringSliceVar(&o.patterns, "pattern", []string{nodeenv.PatternTrace}, "load patterns: "+strings.Join(nodeenv.Patterns, ", "))
	f.Uint64Var(&o.seed, "seed", 7, "scenario seed, the same for every policy")
	f.DurationVar(&o.duration, "duration", time.Hour, "simulated time")
	f.Float64Var(&o.share, "latency-sensitive", 0.5, "fraction of pods with seed 003's limits (soft 20 ms, hard 30 ms)")
	f.StringVarP(&o.format, "format", "o", "table", "output format: table or json")
	f.StringVar(&o.html, "html", "", "also write an HTML report with charts to this file")
	return cmd
}

func (o *learnEvalOptions) run(cmd *cobra.Command) error {
	if o.format != "table" && o.format != "json" {
		return fmt.Errorf("invalid --format %q: want table or json", o.format)
	}
	var models []*learn.Model
	for _, path := range o.models {
		m, err := learn.Load(path)
		if err != nil {
			return err
		}
		if lo, hi, ok := seedRange(m.Info["scenarioSeeds"]); ok && o.seed >= lo && o.seed <= hi {
			return fmt.Errorf("invalid --seed %d: model %s was trained on scenario seeds %d-%d; evaluate on another", o.seed, path, lo, hi)
		}
		models = append(models, m)
	}
	var results []nodeenv.Result
	for _, n := range o.nodes {
		for _, pattern := range o.patterns {
			sc := nodeenv.Scenario{Nodes: n, Pattern: pattern, Duration: o.duration, Seed: o.seed, SensitiveShare: o.share}
			if err := sc.Validate(); err != nil {
				return fmt.Errorf("invalid scenario: %w", err)
			}
			policies := []nodeenv.Policy{}
			for i, m := range models {
				name := m.Reward
				if len(models) > 1 && countReward(models, m.Reward) > 1 {
					name = fmt.Sprintf("%s (%s)", m.Reward, o.models[i])
				}
				policies = append(policies, nodeenv.NewModelPolicy(name, m))
			}
			policies = append(policies, nodeenv.LeastAllocated(), nodeenv.MostAllocated(), nodeenv.BalancedAllocation())
			for _, p := range policies {
				fmt.Fprintf(cmd.ErrOrStderr(), "learn: %d nodes, %s: %s\n", n, pattern, p.Name())
				r, err := nodeenv.Run(sc, p, o.duration/120)
				if err != nil {
					return err
				}
				results = append(results, r)
			}
		}
	}
	out := cmd.OutOrStdout()
	if o.html != "" {
		f, err := os.Create(o.html)
		if err != nil {
			return fmt.Errorf("failed to create the HTML report: %w", err)
		}
		err = nodeenv.HTML(f, "meridian learn eval "+strings.Join(os.Args[min(3, len(os.Args)):], " "), results)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("failed to write %s: %w", o.html, err)
		}
	}
	if o.format == "json" {
		return nodeenv.JSON(out, results)
	}
	return nodeenv.Table(out, results)
}

func countReward(models []*learn.Model, reward string) int {
	n := 0
	for _, m := range models {
		if m.Reward == reward {
			n++
		}
	}
	return n
}

func seedRange(s string) (lo, hi uint64, ok bool) {
	_, err := fmt.Sscanf(s, "%d-%d", &lo, &hi)
	return lo, hi, err == nil
}
