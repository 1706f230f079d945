package cli

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/meridian-dev/meridian/internal/probe"
	"github.com/meridian-dev/meridian/internal/scheme"
)

func newProbeCommand() *cobra.Command {
	var (
		kubeconfig, kubecontext, listen string
		p                               probe.Prober
	)
	cmd := &cobra.Command{
		Use:   "probe --advertise HOST:PORT",
		Short: "Measure this member's round-trip times to the other members (runs in each member)",
		Long: `Probe runs in a member cluster: it answers the probes of the other members'
probers on --listen, and every --interval measures its round trips to them
(the shortest of --samples line echoes on an open connection). It reads where
the others answer from the ConfigMap meridian-probe-targets of --namespace,
which the controller writes, and writes --advertise and what it measured into
the ConfigMap meridian-probe, which the controller carries into
Cluster.status.latencies. It needs only get, create and patch of those two
ConfigMaps in its own member (config/rbac/probe/role.yaml).`,
		Example: `  meridian probe --advertise 10.0.0.7:7946 --listen :7946`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if p.Address == "" {
				return fmt.Errorf("--advertise: say where the other members' probers reach this one (host:port)")
			}
			if _, _, err := net.SplitHostPort(p.Address); err != nil {
				return fmt.Errorf("--advertise %q: want host:port: %w", p.Address, err)
			}
			if p.Samples < 1 || p.Interval <= 0 || p.Timeout <= 0 {
				return fmt.Errorf("--samples, --interval and --timeout must be positive (got %d, %v, %v)", p.Samples, p.Interval, p.Timeout)
			}
			ctrllog.SetLogger(zap.New())
			cfg, err := loadKubeconfig(kubeconfig, kubecontext)
			if err != nil {
				return err
			}
			if p.Client, err = client.New(cfg, client.Options{Scheme: scheme.New()}); err != nil {
				return fmt.Errorf("failed to make a client of the member: %w", err)
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen %q: %w", listen, err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx = ctrllog.IntoContext(ctx, ctrllog.Log.WithName("probe"))
			fmt.Fprintf(cmd.ErrOrStderr(), "probe: answering on %s, advertised as %s\n", ln.Addr(), p.Address)
			g, ctx := errgroup.WithContext(ctx)
			g.Go(func() error { return probe.Serve(ctx, ln) })
			g.Go(func() error { return p.Run(ctx) })
			return g.Wait()
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of this member (default: $KUBECONFIG, ~/.kube/config or in-cluster)")
	fl.StringVar(&kubecontext, "context", "", "kubeconfig context of this member")
	fl.StringVar(&p.Namespace, "namespace", "meridian-system", "namespace of the prober's ConfigMaps")
	fl.StringVar(&listen, "listen", ":7946", "address the prober answers probes on")
	fl.StringVar(&p.Address, "advertise", "", "address the other members' probers reach this one at, host:port (required)")
	fl.StringVar(&p.Source, "source", "", "local IP address probes leave from (default: any)")
	fl.DurationVar(&p.Interval, "interval", 10*time.Second, "time between two rounds of probes")
	fl.IntVar(&p.Samples, "samples", 5, "round trips per member and round; the shortest counts")
	fl.DurationVar(&p.Timeout, "timeout", 3*time.Second, "longest time one member's probes may take")
	return cmd
}
