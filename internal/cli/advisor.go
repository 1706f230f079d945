package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/optimizer/advisor"
	"github.com/meridian-dev/meridian/internal/optimizer/eval"
)

func newAdvisorCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "advisor",
		Short: "Price/performance optimizer: learns how replicas move the metrics and the metrics the target, and advises the fewest replicas in band",
	}
	cmd.AddCommand(newAdvisorServeCommand(), newAdvisorEvalCommand())
	return cmd
}

type advisorServeOptions struct {
	addr    string
	dataDir string
}

func newAdvisorServeCommand() *cobra.Command {
	o := &advisorServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the optimizer's REST API (POST /init, POST /sample, GET /advice, GET /report)",
		Long: `Serve seed 004's optimizer API. A policy keeper (or Meridian's autoscaler)
posts /init once with the metrics, the target band and the m_opt_init_*
constants, posts /sample every interval and asks GET /advice when it scales.
GET /report is an HTML page of the models' fit and the advice history.

The knowledge base is kept in DATA-DIR/knowledge-base.json and survives
restarts: /init with m_opt_init_knowledge_base "use_existing" (the default)
continues from it, "build_new" empties it. See docs/advisor.md.`,
		Example: `  meridian advisor serve --addr 127.0.0.1:8089 --data-dir /var/lib/meridian-advisor`,
		Args:    cobra.NoArgs,
		RunE:    o.run,
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8089", "address to listen on")
	f.StringVar(&o.dataDir, "data-dir", ".", "directory of the knowledge base file")
	return cmd
}

func (o *advisorServeOptions) run(cmd *cobra.Command, _ []string) error {
	if info, err := os.Stat(o.dataDir); err != nil || !info.IsDir() {
		return fmt.Errorf("invalid --data-dir %q: want an existing directory", o.dataDir)
	}
	store := advisor.FileStore{Path: filepath.Join(o.dataDir, "knowledge-base.json")}
	if _, err := store.Load(); err != nil {
		return fmt.Errorf("invalid --data-dir %q: %w", o.dataDir, err)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("invalid --addr %q: %w", o.addr, err)
	}
	srv := &http.Server{Handler: advisor.NewServer(store, nil).Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(cmd.ErrOrStderr(), "advisor: serving on http://%s (knowledge base %s)\n", ln.Addr(), store.Path)
	return serveUntilDone(cmd.Context(), srv, ln)
}

type advisorEvalOptions struct {
	hours  int
	seed   uint64
	format string
	html   string
}

func newAdvisorEvalCommand() *cobra.Command {
	o := &advisorEvalOptions{}
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Compare the seed's rule, Meridian's optimizer, the CPU HPA and a hindsight oracle on a simulated M/M/c web application",
		Long: `Run a web application whose mean latency follows an M/M/c queue under a
diurnal load with bursts, scaled at one-minute intervals by the seed's rule
(300 samples, in-sample reliability, a hand-driven sweep while training),
Meridian's optimizer, internal/autoscale's CPU-utilisation HPA and a hindsight
oracle (the fewest replicas keeping the latency at most the band's maximum).
Prints replica-hours (and cost), the share of intervals in the latency band
and the samples each learner needed to reach production.`,
		Example: `  meridian advisor eval
  meridian advisor eval --hours 48 --seed 2 --html advisor-eval.html`,
		Args: cobra.NoArgs,
		RunE: o.run,
	}
	f := cmd.Flags()
	f.IntVar(&o.hours, "hours", 48, "simulated hours")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the load's bursts, the noise and the optimizer")
	f.StringVarP(&o.format, "format", "o", "table", "output format: table or json")
	f.StringVar(&o.html, "html", "", "also write an HTML page with charts to this file")
	return cmd
}

func (o *advisorEvalOptions) run(cmd *cobra.Command, _ []string) error {
	if o.format != "table" && o.format != "json" {
		return fmt.Errorf("invalid --format %q: want table or json", o.format)
	}
	if o.hours < 6 || o.hours > 24*14 {
		return fmt.Errorf("invalid --hours %d: want 6 to 336", o.hours)
	}
	sc := eval.DefaultScenario()
	sc.Steps = o.hours * int(time.Hour/sc.Step)
	sc.Seed = o.seed
	res, err := eval.Run(sc)
	if err != nil {
		return fmt.Errorf("failed to run the evaluation: %w", err)
	}
	if o.html != "" {
		f, err := os.Create(o.html)
		if err != nil {
			return fmt.Errorf("invalid --html %q: %w", o.html, err)
		}
		if err := res.WriteHTML(f); err != nil {
			f.Close()
			return fmt.Errorf("failed to write %s: %w", o.html, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("failed to write %s: %w", o.html, err)
		}
	}
	if o.format == "json" {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return res.WriteTable(cmd.OutOrStdout())
}
