package cli

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/testbed"
)

func newTestbedLoadCommand(o *testbedOptions) *cobra.Command {
	var cores float64
	var interval time.Duration
	var once bool
	cmd := &cobra.Command{
		Use:   "load NAMESPACE/NAME",
		Short: "Simulate users: spread a CPU load over a MultiClusterDeployment's pods in every member",
		Long: `Spread --cpu cores of load over the running pods of a MultiClusterDeployment in
every member cluster of the testbed, the cloud clusters a CloudProvisioner added
included, as a load balancer would: each pod's kwok.x-k8s.io/usage-cpu
annotation gets its share, and metrics-server reports it, so that a
MultiClusterHorizontalPodAutoscaler sees the utilization a real application
would show. The load is spread again every --interval, as pods come and go,
until interrupted (or once with --once).`,
		Example: `  meridian testbed load vid/web --cpu 3.4
  meridian testbed load vid/web --cpu 1.4 --once`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ns, name, ok := strings.Cut(args[0], "/")
			if !ok || ns == "" || name == "" {
				return fmt.Errorf("argument %q: want NAMESPACE/NAME of a MultiClusterDeployment", args[0])
			}
			if cores < 0 {
				return fmt.Errorf("--cpu %g: must be zero or more cores", cores)
			}
			if interval <= 0 {
				return fmt.Errorf("--interval %s: must be positive", interval)
			}
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			l := &testbed.Load{Dir: dir, Namespace: ns, Name: name}
			l.Set(cores)
			var last string
			for {
				s, err := l.Apply(ctx)
				if err != nil && ctx.Err() == nil {
					return err
				}
				if line := s.String(); line != last {
					fmt.Fprintf(cmd.OutOrStdout(), "%s  %.2f CPU over %s\n", time.Now().Format(time.TimeOnly), cores, line)
					last = line
				}
				if once {
					return nil
				}
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(interval):
				}
			}
		},
	}
	cmd.Flags().Float64Var(&cores, "cpu", 1, "CPU cores of load to spread")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "time between two spreads")
	cmd.Flags().BoolVar(&once, "once", false, "spread once and exit")
	return cmd
}
