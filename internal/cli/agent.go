package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/meridian-dev/meridian/internal/policy"
	"github.com/meridian-dev/meridian/internal/scheme"
	"github.com/meridian-dev/meridian/internal/sharing/agent"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

type agentFlags struct {
	managerFlags
	opts         agent.Options
	virtualNodes virtualnode.Options
	policy       policy.Options
}

func newAgentCommand() *cobra.Command {
	f := &agentFlags{}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run the sharing agent of one member cluster: advertisements, incoming policy, reservations and auctions",
		Long: `Run Meridian's sharing agent in a member cluster (seed 002). As a provider it
advertises what the cluster's nodes can spare to each consumer Peer (Full every
--full-interval, Partial every --partial-interval and when availability moves
by --change-fraction), reserves what a consumer accepts, answers quotes with
offers and frees what expires or is released; capacity is never promised to
two consumers, also across restarts (the ledger is rebuilt from Reservations).
As a consumer it decides every Advertisement by the Rego package
meridian.sharing.incoming of the policy bundle, and auctions pending pods that
fit no accepted advertisement among its provider Peers; for every provider Peer,
also one created while it runs, it makes virtual nodes from the accepted
advertisements and won auctions and reflects the pods bound to them into the
provider (internal/virtualnode).

Peers, their credentials Secrets (a kubeconfig whose context namespace is
where this cluster writes in the peer) and Reservations live in --namespace.
See docs/sharing.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAgent(cmd, f) },
	}
	fl := cmd.Flags()
	f.managerFlags.add(fl, "this member cluster")
	fl.IntVar(&f.virtualNodes.Slice.MaxNodes, "max-virtual-nodes", 100, "most virtual nodes made from one advertisement")
	fl.IntVar(&f.virtualNodes.MaxConcurrentReconciles, "virtual-node-workers", 32, "virtual nodes and pods of each provider handled at once (each waits mostly on the API server)")
	fl.DurationVar(&f.virtualNodes.LeaseDuration, "virtual-node-lease", 40*time.Second, "Lease duration of virtual nodes (renewed every quarter of it)")
	f.opts.AddFlags(fl)
	f.policy.AddFlags(fl)
	return cmd
}

func runAgent(cmd *cobra.Command, f *agentFlags) error {
	f.opts.Default()
	if err := f.opts.Validate(); err != nil {
		return fmt.Errorf("invalid flags: %w", err)
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(cmd.ErrOrStderr())))
	cfg, err := loadKubeconfig(f.kubeconfig, f.context)
	if err != nil {
		return fmt.Errorf("failed to load the cluster's kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = f.opts.KubeAPIQPS, f.opts.KubeAPIBurst
	ctx := cmd.Context()
	engine, err := policy.New(ctx, f.policy, policy.WithRegisterer(metrics.Registry), policy.WithLogger(ctrl.Log.WithName("policy")))
	if err != nil {
		return err
	}
	defer func() { _ = engine.Close() }()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme.New(),
		Metrics:                 metricsserver.Options{BindAddress: f.metricsAddr},
		HealthProbeBindAddress:  f.probeAddr,
		LeaderElection:          f.leaderElect,
		LeaderElectionID:        "meridian-agent." + string(f.opts.ClusterID),
		LeaderElectionNamespace: f.opts.Namespace,
	})
	if err != nil {
		return fmt.Errorf("failed to create the manager: %w", err)
	}
	if err := mgr.Add(engine); err != nil {
		return fmt.Errorf("failed to add the policy engine: %w", err)
	}
	if err := agent.Setup(mgr, f.opts, engine, nil); err != nil {
		return err
	}
	if err := agent.SetupVirtualNodes(mgr, f.opts, f.virtualNodes); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add the readiness check: %w", err)
	}
	return mgr.Start(ctx)
}
