package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/sim"
	"github.com/meridian-dev/meridian/internal/sim/report"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

type simOptions struct {
	scenarios []string
	seed      uint64
	format    string
	out       string
	quiet     bool
}

func newSimCommand() *cobra.Command {
	o := &simOptions{}
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Simulate a scenario against the real placement code and compare policies",
		Long: `Run a scenario in virtual time: member clusters modelled node by node, the real
placement framework deciding, and the multi-cluster HPA, cloud provisioner and
re-scheduler running as the controllers do. Every policy of the scenario runs on
the same workload, and a table compares them.

With no flags it runs seed 001's experiment VI-B (KubeFed, mck8s and Meridian on
1,126 Google-trace-like tasks over five clusters and a cloud).`,
		Example: `  meridian sim
  meridian sim --scenario vi-d --out report/
  meridian sim --scenario examples/scenarios/member-outage.yaml --format json
  meridian sim list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("seed") {
				return o.run(cmd, nil)
			}
			return o.run(cmd, &o.seed)
		},
	}
	f := cmd.Flags()
	f.StringSliceVarP(&o.scenarios, "scenario", "s", []string{"vi-b"}, "built-in scenario name or scenario file (repeat or comma-separate for several)")
	f.Uint64Var(&o.seed, "seed", 0, "workload seed (default: the scenario's); the same seed gives the same numbers")
	f.StringVarP(&o.format, "format", "o", "table", "output format: table or json")
	f.StringVar(&o.out, "out", "", "directory to write the HTML report, the JSON document and the raw series (CSV, JSON) to")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not report progress on stderr")
	cmd.AddCommand(newSimListCommand())
	cmd.AddCommand(newSimCarbonCommand())
	return cmd
}

func (o *simOptions) run(cmd *cobra.Command, seed *uint64) error {
	if o.format != "table" && o.format != "json" {
		return fmt.Errorf("invalid --format %q: want table or json", o.format)
	}
	scenarios := make([]*scenario.Scenario, 0, len(o.scenarios))
	for _, name := range o.scenarios {
		sc, err := scenario.Load(name)
		if err != nil {
			return err
		}
		scenarios = append(scenarios, sc)
	}
	progress := newProgress(cmd.ErrOrStderr(), o.quiet)
	var results []*sim.Result
	for _, sc := range scenarios {
		start := time.Now()
		r, err := sim.Run(cmd.Context(), sc, sim.Options{Seed: seed, Progress: progress.update})
		progress.done(sc.Name, time.Since(start))
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if o.out != "" {
		if err := writeReport(o.out, results); err != nil {
			return err
		}
		progress.note("report written to %s", filepath.Join(o.out, "index.html"))
	}
	if o.format == "json" {
		return report.JSON(cmd.OutOrStdout(), results...)
	}
	return report.Table(cmd.OutOrStdout(), results...)
}

// writeReport writes index.html, results.json, and per scenario the raw
// series as JSON and one CSV per policy.
func writeReport(dir string, results []*sim.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("failed to create report directory: %w", err)
	}
	write := func(name string, fn func(io.Writer) error) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("failed to write report: %w", err)
		}
		if err := fn(f); err != nil {
			_ = f.Close()
			return fmt.Errorf("failed to write %s: %w", f.Name(), err)
		}
		return f.Close()
	}
	if err := write("index.html", func(w io.Writer) error { return report.HTML(w, results...) }); err != nil {
		return err
	}
	if err := write("results.json", func(w io.Writer) error { return report.JSON(w, results...) }); err != nil {
		return err
	}
	for _, r := range results {
		if err := write(r.Scenario+"-series.json", func(w io.Writer) error { return report.SeriesJSON(w, r) }); err != nil {
			return err
		}
		for _, p := range r.Policies {
			if err := write(r.Scenario+"-"+p.Policy+".csv", func(w io.Writer) error { return report.CSV(w, p.Series) }); err != nil {
				return err
			}
		}
	}
	return nil
}

func newSimListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			infos, err := scenario.Builtins()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tDESCRIPTION")
			for _, i := range infos {
				fmt.Fprintf(tw, "%s\t%s\n", i.Name, i.Description)
			}
			return tw.Flush()
		},
	}
}

// progress reports on stderr: a bar redrawn in place on a terminal, a line
// per policy otherwise.
type progress struct {
	out      io.Writer
	quiet    bool
	terminal bool
	last     string
}

func newProgress(out io.Writer, quiet bool) *progress {
	p := &progress{out: out, quiet: quiet}
	if f, ok := out.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.terminal = os.Getenv("TERM") != "dumb"
		}
	}
	return p
}

func (p *progress) update(pr sim.Progress) {
	if p.quiet {
		return
	}
	frac := (float64(pr.Index) + float64(pr.Done)/float64(pr.Total)) / float64(pr.Policies)
	if !p.terminal {
		if pr.Done == pr.Total {
			fmt.Fprintf(p.out, "sim: %s: policy %s done (%d/%d)\n", pr.Scenario, pr.Policy, pr.Index+1, pr.Policies)
		}
		return
	}
	const width = 30
	filled := int(frac * width)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	line := fmt.Sprintf("\r%s %3.0f%% %s: %s %.0f/%.0f min", bar, 100*frac, pr.Scenario, pr.Policy, pr.Done.Minutes(), pr.Total.Minutes())
	if line != p.last {
		fmt.Fprintf(p.out, "%s\033[K", line)
		p.last = line
	}
}

func (p *progress) done(scenario string, took time.Duration) {
	if p.quiet {
		return
	}
	if p.terminal {
		fmt.Fprint(p.out, "\r\033[K")
	}
	fmt.Fprintf(p.out, "sim: %s simulated in %v\n", scenario, took.Round(time.Millisecond))
}

func (p *progress) note(format string, args ...any) {
	if !p.quiet {
		fmt.Fprintf(p.out, "sim: "+format+"\n", args...)
	}
}
