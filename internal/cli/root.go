package cli

import (
	"github.com/spf13/cobra"
)

// NewRootCommand returns the meridian command with every subcommand.
func NewRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "meridian",
		Short: "Place, share and scale workloads across Kubernetes clusters and clouds by policy",
		Long: `Meridian places, shares and scales workloads across many Kubernetes clusters
and clouds by policy: capacity, latency, traffic, price, carbon and data residency.

Start with the simulator, which runs seed 001's experiments against the real
placement code:

  meridian sim`,
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	root.AddCommand(
		newVersionCommand(),
		newSimCommand(),
		newControllerCommand(),
		newBenchCommand(),
		newTestbedCommand(),
		newCarbonCommand(),
		newAdvisorCommand(),
		newLearnCommand(),
		newAgentCommand(),
		newSuggestCommand(),
		newBrokerCommand(),
		newDashboardCommand(),
		newConvertCommand(),
		newJoinCommand(),
		newUnjoinCommand(),
		newProbeCommand(),
		newPeerCommand(),
		newUnpeerCommand(),
		newLatenciesCommand(),
	)
	return root
}
