package cli

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/testbed"
)

func newTestbedAddCommand(o *testbedOptions) *cobra.Command {
	var (
		spec        testbed.ClusterSpec
		nodes       int
		cpu, memory string
	)
	cmd := &cobra.Command{
		Use:   "add NAME",
		Short: "Start one more member cluster on a running testbed, without registering it",
		Long: `Start one more member cluster (etcd, kube-apiserver, kube-controller-manager,
kube-scheduler, kwok) on the running testbed, with --nodes kwok nodes, and add
its context to the testbed's kubeconfig. Meridian does not know it yet: join
it with 'meridian join NAME --member-context <testbed>-NAME', as you would a
cluster of your own (docs/join.md). Running it again for a member that runs
changes nothing; 'meridian testbed remove NAME' stops it.`,
		Example: `  meridian testbed add edge --nodes 2 --region eu-south
  meridian join edge --member-context meridian-edge --region eu-south`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			size := testbed.NodeSize{}
			if size.CPU, err = resource.ParseQuantity(cpu); err != nil {
				return fmt.Errorf("--node-cpu %q: %w", cpu, err)
			}
			if size.Memory, err = resource.ParseQuantity(memory); err != nil {
				return fmt.Errorf("--node-memory %q: %w", memory, err)
			}
			if nodes < 0 {
				return fmt.Errorf("--nodes %d: must not be negative", nodes)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			spec.Name = args[0]
			fmt.Fprintf(cmd.ErrOrStderr(), "starting member %s...\n", spec.Name)
			added, err := testbed.AddCluster(ctx, dir, spec)
			if err != nil {
				return err
			}
			if _, err := testbed.SetNodes(ctx, dir, spec.Name, size, nodes, nil); err != nil {
				return err
			}
			state := "started"
			if !added.Started {
				state = "already running"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Member %s %s with %d nodes of %s; context %s. Join it: meridian join %s --member-context %s\n",
				spec.Name, state, nodes, size, testbed.ContextName(o.name, spec.Name), spec.Name, testbed.ContextName(o.name, spec.Name))
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&nodes, "nodes", 2, "kwok nodes of the member")
	f.StringVar(&cpu, "node-cpu", "4", "CPU of each node")
	f.StringVar(&memory, "node-memory", "16Gi", "memory of each node")
	f.StringVar(&spec.Region, "region", "", "region label of the nodes (topology.kubernetes.io/region)")
	f.StringVar(&spec.Zone, "zone", "", "zone label of the nodes (topology.kubernetes.io/zone)")
	return cmd
}

func newTestbedRemoveCommand(o *testbedOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Stop a member that 'meridian testbed add' started and remove its folder",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			if err := testbed.RemoveCluster(cmd.Context(), dir, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Member %s removed.\n", args[0])
			return nil
		},
	}
}

func newTestbedNetworkCommand() *cobra.Command {
	var routes string
	cmd := &cobra.Command{
		Use:    "network --routes FILE",
		Short:  "Run the testbed's network: proxies that delay probes by the profile's latencies (started by 'up')",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rs, err := testbed.ReadRoutes(routes)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			fmt.Fprintf(cmd.ErrOrStderr(), "network: %d routes\n", len(rs))
			return testbed.ServeNetwork(ctx, rs)
		},
	}
	cmd.Flags().StringVar(&routes, "routes", "", "the routes file 'up' writes")
	return cmd
}
