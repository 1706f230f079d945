package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/carbon/offline"
	"github.com/meridian-dev/meridian/internal/policy"
	"github.com/meridian-dev/meridian/internal/sim/carbonsim"
)

type simCarbonOptions struct {
	seeds      []uint
	jobs       int
	year       int
	headroom   float64
	iterations int
	format     string
	out        string
	quiet      bool
}

func newSimCarbonCommand() *cobra.Command {
	o := &simCarbonOptions{}
	cmd := &cobra.Command{
		Use:   "carbon",
		Short: "Replay a recorded year of grid intensities and compare carbon-aware policies with an oracle",
		Long: `Replay a real year of hourly carbon intensities (the offline data) against a job
trace drawn from a seed: jobs from minutes to days long, deadlines with 0-48 h of
slack, latency and residency limits that the policy engine turns into eligible
regions, and a declared capacity per region. Carbon-agnostic, round-robin,
temporal-only, spatial-only and Meridian (the product's scheduler on the product's
forecasts) place every job; meridian-perfect is the same scheduler on the actual
intensities, and an oracle that knows them bounds what any schedule could save.

The table gives each policy's emissions, savings against carbon-agnostic, share
of the oracle's savings, deadline misses, largest share of the work in one region
and region-hours over capacity. A year of 2000 jobs takes about a minute and a
half on two cores, most of it fitting the forecaster.`,
		Example: `  meridian sim carbon
  meridian sim carbon --seed 1,2,3,4,5 --out report/
  meridian sim carbon --seed 7 --jobs 500 --format json`,
		Args: cobra.NoArgs,
		RunE: o.run,
	}
	f := cmd.Flags()
	f.UintSliceVar(&o.seeds, "seed", []uint{carbonsim.DefaultSeed}, "trace seeds (repeat or comma-separate for several); seed 1 is the built-in scenario")
	f.IntVar(&o.jobs, "jobs", carbonsim.DefaultJobs, "jobs arriving over the year")
	f.IntVar(&o.year, "year", carbonsim.DefaultYear, "replayed year (UTC); the forecaster trains on the year before")
	f.Float64Var(&o.headroom, "headroom", carbonsim.DefaultHeadroom, "each region's capacity over the peak load carbon-agnostic puts on it (at least 1)")
	f.IntVar(&o.iterations, "oracle-iterations", carbonsim.DefaultIterations, "the oracle's subgradient iterations")
	f.StringVarP(&o.format, "format", "o", "table", "output format: table or json")
	f.StringVar(&o.out, "out", "", "directory to write the HTML report (index.html) and the JSON document (results.json) to")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not report progress on stderr")
	return cmd
}

func (o *simCarbonOptions) run(cmd *cobra.Command, _ []string) error {
	switch {
	case o.format != "table" && o.format != "json":
		return fmt.Errorf("invalid --format %q: want table or json", o.format)
	case o.jobs <= 0:
		return fmt.Errorf("invalid --jobs %d: must be positive", o.jobs)
	case o.headroom < 1:
		return fmt.Errorf("invalid --headroom %g: must be at least 1, so that carbon-agnostic fits", o.headroom)
	case o.iterations <= 0:
		return fmt.Errorf("invalid --oracle-iterations %d: must be positive", o.iterations)
	case len(o.seeds) == 0:
		return fmt.Errorf("invalid --seed: give at least one seed, e.g. 1")
	}
	for _, s := range o.seeds {
		if s == 0 {
			return fmt.Errorf("invalid --seed 0: seeds start at 1")
		}
	}
	ctx := cmd.Context()
	engine, err := policy.New(ctx, policy.Options{})
	if err != nil {
		return fmt.Errorf("failed to load the default policy bundle: %w", err)
	}
	defer func() { _ = engine.Close() }()
	data, err := offline.Default()
	if err != nil {
		return fmt.Errorf("failed to load the offline carbon data: %w", err)
	}
	progress := newProgress(cmd.ErrOrStderr(), o.quiet)
	var results []*carbonsim.Result
	for _, seed := range o.seeds {
		start := time.Now()
		s, err := carbonsim.New(ctx, engine, data, carbonsim.Options{Seed: uint64(seed), Jobs: o.jobs, Year: o.year, Headroom: o.headroom})
		if err != nil {
			return err
		}
		r, err := carbonsim.Run(ctx, s, carbonsim.Oracle{Iterations: o.iterations}, func(p carbonsim.Progress) { progress.carbon(s.Name, p) })
		progress.done(s.Name, time.Since(start))
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if o.out != "" {
		if err := writeCarbonReport(o.out, results); err != nil {
			return err
		}
		progress.note("report written to %s", filepath.Join(o.out, "index.html"))
	}
	if o.format == "json" {
		return carbonsim.WriteJSON(cmd.OutOrStdout(), results...)
	}
	return carbonsim.WriteTable(cmd.OutOrStdout(), results...)
}

// writeCarbonReport writes index.html and results.json into dir.
func writeCarbonReport(dir string, results []*carbonsim.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("failed to create report directory: %w", err)
	}
	for name, fn := range map[string]func(io.Writer, ...*carbonsim.Result) error{
		"index.html":   carbonsim.WriteHTML,
		"results.json": carbonsim.WriteJSON,
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("failed to write report: %w", err)
		}
		if err := fn(f, results...); err != nil {
			_ = f.Close()
			return fmt.Errorf("failed to write %s: %w", f.Name(), err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("failed to write %s: %w", f.Name(), err)
		}
	}
	return nil
}

// carbon reports a carbon evaluation's progress: a bar redrawn in place on
// a terminal, a line per step otherwise.
func (p *progress) carbon(scenario string, pr carbonsim.Progress) {
	if p.quiet || pr.Total == 0 {
		return
	}
	if !p.terminal {
		if pr.Done == pr.Total {
			fmt.Fprintf(p.out, "sim: %s: %s done\n", scenario, pr.Step)
		}
		return
	}
	const width = 30
	filled := width * pr.Done / pr.Total
	line := fmt.Sprintf("\r%s%s %s: %s %d/%d", strings.Repeat("█", filled), strings.Repeat("░", width-filled), scenario, pr.Step, pr.Done, pr.Total)
	if line != p.last {
		fmt.Fprintf(p.out, "%s\033[K", line)
		p.last = line
	}
}
