package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/optimizer/advisor"
)

func newAdvisorCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "advisor",
		Short: "Price/performance optimizer: learns how replicas move the metrics and the metrics the target, and advises the fewest replicas in band",
	}
	cmd.AddCommand(newAdvisorServeCommand())
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
	ctx := cmd.Context()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			return err
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
