package cli

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/meridian-dev/meridian/internal/kubeletproxy"
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
	// kubeletBind is where the virtual nodes' kubelet endpoint listens
	// ("" or "0": none); kubelet configures it.
	kubeletBind string
	kubelet     kubeletproxy.Options
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

With --kubelet-bind-address it serves the virtual nodes' kubelet endpoint, so
that 'kubectl logs', 'exec', 'attach' and 'port-forward' of an offloaded pod
reach its twin in the provider (internal/kubeletproxy): the consumer's API
server reaches it at --kubelet-address, which every virtual node advertises.

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
	fl.StringVar(&f.kubeletBind, "kubelet-bind-address", "0", `where the virtual nodes' kubelet endpoint listens, e.g. ":10250" ("0": none, and 'kubectl logs' or 'exec' of an offloaded pod fail)`)
	fl.StringVar(&f.kubelet.Address, "kubelet-address", "", "IP address the virtual nodes advertise, where the cluster's API server reaches the kubelet endpoint (the pod's IP); defaults to the bind address's IP when it names one")
	fl.StringVar(&f.kubelet.CertFile, "kubelet-cert-file", "", "serving certificate of the kubelet endpoint (PEM, reloaded when it changes); empty: a self-signed one for --kubelet-address")
	fl.StringVar(&f.kubelet.KeyFile, "kubelet-key-file", "", "key of --kubelet-cert-file")
	f.opts.AddFlags(fl)
	f.policy.AddFlags(fl)
	return cmd
}

// listenKubelet opens the kubelet endpoint's listener, when one is asked
// for, and sets the address and port the virtual nodes advertise.
func listenKubelet(f *agentFlags) (net.Listener, error) {
	if f.kubeletBind == "" || f.kubeletBind == "0" {
		return nil, nil
	}
	host, _, err := net.SplitHostPort(f.kubeletBind)
	if err != nil {
		return nil, fmt.Errorf("invalid flags: --kubelet-bind-address %q: want host:port, e.g. \":10250\": %w", f.kubeletBind, err)
	}
	if f.kubelet.Address == "" {
		if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
			f.kubelet.Address = host
		}
	}
	if (f.kubelet.CertFile == "") != (f.kubelet.KeyFile == "") {
		return nil, fmt.Errorf("invalid flags: --kubelet-cert-file and --kubelet-key-file are given together or not at all (got %q and %q)", f.kubelet.CertFile, f.kubelet.KeyFile)
	}
	if ip := net.ParseIP(f.kubelet.Address); ip == nil || ip.IsUnspecified() {
		return nil, fmt.Errorf("invalid flags: --kubelet-address %q: want the IP address the cluster's API server reaches this agent at (the pod's IP), required when --kubelet-bind-address %q names none", f.kubelet.Address, f.kubeletBind)
	}
	l, err := net.Listen("tcp", f.kubeletBind)
	if err != nil {
		return nil, fmt.Errorf("failed to listen on --kubelet-bind-address %q: %w", f.kubeletBind, err)
	}
	f.virtualNodes.Kubelet = virtualnode.KubeletEndpoint{Address: f.kubelet.Address, Port: int32(l.Addr().(*net.TCPAddr).Port)}
	return l, nil
}

func runAgent(cmd *cobra.Command, f *agentFlags) error {
	f.opts.Default()
	if err := f.opts.Validate(); err != nil {
		return fmt.Errorf("invalid flags: %w", err)
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(cmd.ErrOrStderr())))
	kubeletListener, err := listenKubelet(f)
	if err != nil {
		return err
	}
	if kubeletListener != nil {
		defer func() { _ = kubeletListener.Close() }()
	}
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
	locator, err := agent.SetupVirtualNodes(mgr, f.opts, f.virtualNodes)
	if err != nil {
		return err
	}
	if kubeletListener != nil {
		srv, err := kubeletproxy.New(ctx, cfg, locator, f.kubelet)
		if err != nil {
			return err
		}
		if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { return srv.Serve(ctx, kubeletListener) })); err != nil {
			return fmt.Errorf("failed to add the kubelet endpoint: %w", err)
		}
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add the readiness check: %w", err)
	}
	return mgr.Start(ctx)
}
