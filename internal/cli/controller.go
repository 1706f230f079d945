package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/bootstrap"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/cloud/clusterapi"
	cloudtestbed "github.com/meridian-dev/meridian/internal/cloud/testbed"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/policy"
	"github.com/meridian-dev/meridian/internal/scheme"
	"github.com/meridian-dev/meridian/internal/traffic"
	"github.com/meridian-dev/meridian/internal/webhook"
)

// defaultTrafficQuery reads the request rate a workload's pods serve, as
// most HTTP instrumentation names it, per cluster label.
const defaultTrafficQuery = `sum by (cluster) (rate(http_requests_total{namespace="{{.Namespace}}",app="{{.Name}}"}[1m]))`

type controllerFlags struct {
	managerFlags
	testbedDir       string
	prometheus       traffic.Config
	capi             clusterapi.Options
	opts             controller.Options
	webhookHost      string
	webhookPort      int
	webhookCertDir   string
	dashboardAddr    string
	dashboardCertDir string
	policy           policy.Options
	carbon           carbonFlags
	pprofAddr        string
	bootstrap        bootstrapFlags
}

// bootstrapFlags say what --bootstrap writes into the management cluster.
type bootstrapFlags struct {
	enabled       bool
	webhookURL    string
	failurePolicy string
}

func newControllerCommand() *cobra.Command {
	f := &controllerFlags{}
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run the management-plane controllers (inventory, placement, propagation, status, CloudVMs), the CloudVM admission webhook and the carbon scheduler",
		Long: `Run Meridian's controllers against the management cluster: they connect to every
member Cluster, place MultiClusterDeployments by policy, propagate them into the
members and report what runs where. Leader election lets several replicas run
for availability; metrics are served in Prometheus format.

The management cluster is the current context of --kubeconfig, $KUBECONFIG or
~/.kube/config, or the in-cluster configuration. Meridian's CRDs must be
installed there (kubectl apply --server-side -f config/crd/bases), or
--bootstrap installs them at start, with the namespace and, given
--bootstrap-webhook-url, the CloudVM webhook's configurations: for a
management API server of Meridian's own, as the Helm chart's control plane
(controlPlane.enabled) is.

With --webhook-cert-dir it also serves the CloudVM admission webhook (HTTPS,
every replica), which runs the policy engine (--policy-* flags) in-process;
register it with config/webhook/manifests.yaml (see docs/vms.md).

Carbon: every replica runs a carbon scheduler that picks each CloudVM's
region and start with the least forecast emissions before its deadline, and
gives the Carbon placement policy its intensities. It reads every grid zone
the policy data's regions map to (plus --carbon-zones) every
--carbon-refresh-interval. Out of the box it reads the offline data shipped
in the binary (no credentials, decisions say "offline"); --carbon-sources
names a file that puts Electricity Maps, WattTime or the Carbon Aware SDK
first, with the credentials in $MERIDIAN_ELECTRICITYMAPS_TOKEN,
$MERIDIAN_WATTTIME_USERNAME and $MERIDIAN_WATTTIME_PASSWORD:

  order: [electricitymaps]
  electricityMaps: {requestsPerMinute: 30}

--carbon-capacity names a file of the vCPU the scheduler may plan per region
and per grid zone; without it every region is unlimited:

  regions: {azure/westeurope: 64, gcp/europe-west4: 32}
  zones: {NL: 80}

The scheduler's reservations are rebuilt from the stored CloudVMs'
spec.schedule at start (admissions wait for it), follow the CloudVMs other
replicas admit, and are released when a CloudVM is deleted, Failed or
Completed, or when a request is refused or is a dry run (see docs/carbon.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runController(cmd, f) },
	}
	fl := cmd.Flags()
	f.managerFlags.add(fl, "the management cluster")
	fl.StringVar(&f.opts.Namespace, "namespace", controller.DefaultNamespace, "namespace of the leader-election lease, of kubeconfig Secrets that name none, and of the ResourcePlacements of cluster-scoped objects")
	fl.DurationVar(&f.opts.HeartbeatInterval, "heartbeat-interval", 10*time.Second, "time between two heartbeats of a member cluster")
	fl.DurationVar(&f.opts.HeartbeatTimeout, "heartbeat-timeout", 5*time.Second, "how long a member may take to answer a heartbeat")
	fl.DurationVar(&f.opts.TokenRenewBefore, "member-token-renew-before", 0, "how long before it expires a member token that meridian join issued is renewed (0: once a third of its lifetime is left)")
	fl.DurationVar(&f.opts.PendingGrace, "pending-grace", 30*time.Second, "how long replicas may stay Unschedulable in a member before the overflow is placed elsewhere")
	fl.DurationVar(&f.opts.FailoverGrace, "failover-grace", decide.DefaultTiming.FailoverGrace, "how long a member may be NotReady before its replicas are placed elsewhere (0 holds them until it returns)")
	fl.DurationVar(&f.opts.AutoscaleInterval, "autoscale-interval", 15*time.Second, "time between two metric readings of a MultiClusterHorizontalPodAutoscaler")
	fl.StringVar(&f.prometheus.URL, "prometheus-url", "", "Prometheus server that TrafficAware workloads' traffic is read from, and that MultiClusterHorizontalPodAutoscalers' optimizer mode queries when spec.optimizer.prometheusURL is empty (empty: workloads are placed without traffic)")
	fl.StringVar(&f.prometheus.Query, "traffic-query", defaultTrafficQuery, "PromQL template of a workload's traffic per cluster ({{.Namespace}}, {{.Name}}); spec.placement.traffic.query overrides it")
	fl.StringVar(&f.prometheus.ClusterLabel, "traffic-cluster-label", traffic.DefaultClusterLabel, "label of the traffic query's series that holds the Cluster name")
	fl.DurationVar(&f.opts.TrafficInterval, "traffic-interval", 30*time.Second, "time between two traffic readings of a TrafficAware workload")
	fl.DurationVar(&f.opts.ProvisionerPeriod, "provisioner-period", 30*time.Second, "time between two decisions of a CloudProvisioner")
	fl.StringVar(&f.testbedDir, "testbed-dir", "", "folder of a running testbed (meridian testbed up --dir); enables CloudProvisioners with backend Testbed, which add member clusters to it")
	fl.StringVar(&f.capi.KubernetesVersion, "capi-kubernetes-version", clusterapi.DefaultKubernetesVersion, "Kubernetes version of the cloud clusters the ClusterAPI backend creates")
	fl.StringVar(&f.capi.OpenStack.CloudName, "capi-openstack-cloud", "openstack", "cloud of the clouds.yaml in a CloudProvisioner's credentials Secret that the ClusterAPI backend uses")
	fl.StringVar(&f.capi.OpenStack.Image, "capi-openstack-image", "", "OpenStack image of cloud cluster machines (default ubuntu-2404-kube-<version>)")
	fl.StringVar(&f.capi.OpenStack.ExternalNetworkID, "capi-openstack-external-network", "", "OpenStack external network of cloud clusters (default: the cloud's only one)")
	fl.StringVar(&f.capi.OpenStack.SSHKeyName, "capi-openstack-ssh-key", "", "OpenStack SSH key pair put on cloud cluster machines")
	fl.DurationVar(&f.opts.OrphanSweepInterval, "orphan-sweep-interval", time.Minute, "time between two sweeps for member objects whose owner is gone")
	fl.DurationVar(&f.opts.CloudVMStartSlack, "cloudvm-start-slack", decide.DefaultVMTiming.StartSlack, "how long after its planned start a CloudVM may still be started (after a restart); later it is Failed, never started late")
	fl.DurationVar(&f.opts.CloudVMPoll, "cloudvm-poll", decide.DefaultVMTiming.Poll, "time between two readings of a running CloudVM's provider objects")
	fl.StringVar(&f.webhookHost, "webhook-host", "", "address the admission webhook listens on (empty: every address)")
	fl.IntVar(&f.webhookPort, "webhook-port", ctrlwebhook.DefaultPort, "port of the CloudVM admission webhook (HTTPS)")
	fl.BoolVar(&f.opts.ImportClusterProfiles, "import-cluster-profiles", false, "take members from other cluster managers' ClusterProfiles (multicluster.x-k8s.io) in --namespace whose access provider is a kubeconfig Secret (kubeconfig-secretreader)")
	fl.StringVar(&f.opts.ClusterModel, "cluster-model", "", "model file of the learned cluster scorer that the Learned placement policy uses (meridian learn train --level cluster); empty: the model shipped in the binary")
	fl.StringVar(&f.dashboardAddr, "dashboard-bind-address", "", "address of the web dashboard (empty: off); it reads with each viewer's bearer token, and needs --dashboard-cert-dir unless the address is a loopback one")
	fl.StringVar(&f.dashboardCertDir, "dashboard-cert-dir", "", "folder holding the dashboard's serving certificate as tls.crt and tls.key (reloaded when it changes); the dashboard is served over HTTPS")
	fl.StringVar(&f.webhookCertDir, "webhook-cert-dir", "", "folder holding the webhook's serving certificate as tls.crt and tls.key (a mounted Secret; reloaded when it changes); empty turns the CloudVM admission webhook off")
	fl.StringVar(&f.pprofAddr, "pprof-bind-address", "", "address of Go's /debug/pprof profiles of the controller (empty: off), to find where its time and memory go")
	fl.BoolVar(&f.bootstrap.enabled, "bootstrap", false, "at start, install Meridian's CRDs (waiting until they are established) and --namespace into the management cluster, and the webhook configurations when --bootstrap-webhook-url is set")
	fl.StringVar(&f.bootstrap.webhookURL, "bootstrap-webhook-url", "", "with --bootstrap: https:// URL at which the management cluster's API server reaches this controller's webhook server; the webhook configurations trust ca.crt of --webhook-cert-dir")
	fl.StringVar(&f.bootstrap.failurePolicy, "bootstrap-webhook-failure-policy", "Fail", "with --bootstrap-webhook-url: what the API server does when no replica answers, Fail or Ignore")
	f.policy.AddFlags(fl)
	f.carbon.addFlags(fl)
	return cmd
}

func runController(cmd *cobra.Command, f *controllerFlags) error {
	ctrl.SetLogger(zap.New(zap.WriteTo(cmd.ErrOrStderr())))
	cfg, err := loadKubeconfig(f.kubeconfig, f.context)
	if err != nil {
		return fmt.Errorf("failed to load the management cluster's kubeconfig: %w", err)
	}
	if cfg.QPS == 0 {
		// client-go's default of 5 requests a second made a start over
		// thousands of MultiClusterDeployments take hours (two writes
		// each); as controller-runtime's GetConfig does, leave the pace to
		// the API server's priority and fairness.
		cfg.QPS = -1
	}
	var webhookServer ctrlwebhook.Server
	if f.webhookCertDir != "" {
		for _, name := range []string{"tls.crt", "tls.key"} {
			if _, err := os.Stat(filepath.Join(f.webhookCertDir, name)); err != nil {
				return fmt.Errorf("invalid --webhook-cert-dir %q: it must hold tls.crt and tls.key: %w", f.webhookCertDir, err)
			}
		}
		if f.webhookPort < 1 || f.webhookPort > 65535 {
			return fmt.Errorf("invalid --webhook-port %d: must be between 1 and 65535", f.webhookPort)
		}
		// The server's certificate watcher reloads tls.crt and tls.key when
		// the mounted Secret is rotated.
		webhookServer = ctrlwebhook.NewServer(ctrlwebhook.Options{Host: f.webhookHost, Port: f.webhookPort, CertDir: f.webhookCertDir})
	}
	boot, err := runBootstrap(cmd.Context(), cfg, f)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		WebhookServer:           webhookServer,
		Scheme:                  scheme.New(),
		Metrics:                 metricsserver.Options{BindAddress: f.metricsAddr},
		HealthProbeBindAddress:  f.probeAddr,
		PprofBindAddress:        f.pprofAddr,
		LeaderElection:          f.leaderElect,
		LeaderElectionID:        "meridian-controller",
		LeaderElectionNamespace: f.opts.Namespace,
		// Release the lease on a clean stop, so that another replica takes
		// over at once.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return fmt.Errorf("failed to create the controller manager: %w", err)
	}
	if boot != nil {
		if err := mgr.Add(boot); err != nil {
			return fmt.Errorf("failed to add the webhook CA follower: %w", err)
		}
	}
	if f.prometheus.URL != "" {
		src, err := traffic.New(f.prometheus)
		if err != nil {
			return fmt.Errorf("invalid traffic flags: %w", err)
		}
		f.opts.Traffic = src
	}
	capi, err := clusterapi.New(mgr.GetClient(), f.capi)
	if err != nil {
		return fmt.Errorf("invalid ClusterAPI backend flags: %w", err)
	}
	f.opts.CloudBackends = map[multiclusterv1alpha1.ProvisionerBackend]cloud.Backend{multiclusterv1alpha1.BackendClusterAPI: capi}
	if f.testbedDir != "" {
		f.opts.CloudBackends[multiclusterv1alpha1.BackendTestbed] = cloudtestbed.New(f.testbedDir)
	}
	engine, err := newPolicyEngine(cmd, mgr, f)
	if err != nil {
		return err
	}
	sched, err := setupCarbon(cmd, mgr, f, engine)
	if err != nil {
		return err
	}
	f.opts.Carbon = func() placement.CarbonIntensity {
		if in := sched.planner.Intensities(); in != nil {
			return in
		}
		return nil
	}
	f.opts.CarbonHistory = sched.history
	f.opts.PrometheusURL = f.prometheus.URL
	if _, err := controller.Setup(mgr, f.opts); err != nil {
		return err
	}
	webhookState, err := setupWebhook(mgr, f, engine, sched.planner)
	if err != nil {
		return err
	}
	if err := setupDashboard(mgr, cfg, f); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "meridian controller: managing %s (metrics on %s, leader election %v, %s; %s)\n", cfg.Host, f.metricsAddr, f.leaderElect, webhookState, sched.summary)
	return mgr.Start(cmd.Context())
}

// newPolicyEngine starts the policy engine the CloudVM webhook evaluates,
// on every replica, when --webhook-cert-dir is set; nil otherwise.
func newPolicyEngine(cmd *cobra.Command, mgr ctrl.Manager, f *controllerFlags) (*policy.Engine, error) {
	if f.webhookCertDir == "" {
		return nil, nil
	}
	engine, err := policy.New(cmd.Context(), f.policy,
		policy.WithRegisterer(metrics.Registry),
		policy.WithLogger(ctrl.Log.WithName("policy")))
	if err != nil {
		return nil, fmt.Errorf("failed to start the policy engine: %w", err)
	}
	go func() {
		// Close the decision log once the manager has stopped.
		<-cmd.Context().Done()
		_ = engine.Close()
	}()
	// The engine polls its bundle source on every replica, leader or not:
	// every replica serves the webhook.
	if err := mgr.Add(everyReplica{engine}); err != nil {
		return nil, fmt.Errorf("failed to add the policy engine: %w", err)
	}
	return engine, nil
}

// setupCarbon builds the carbon scheduler from the --carbon-* flags and
// adds its Refresher to the manager. Its grid zones are those of the
// regions in the policy data: engine's revision, or the default bundle's
// when the webhook is off.
func setupCarbon(cmd *cobra.Command, mgr ctrl.Manager, f *controllerFlags, engine *policy.Engine) (*carbonScheduler, error) {
	if engine == nil {
		e, err := policy.New(cmd.Context(), policy.Options{})
		if err != nil {
			return nil, fmt.Errorf("failed to read the default policy data's regions: %w", err)
		}
		defer func() { _ = e.Close() }()
		engine = e
	}
	regions, err := engine.RegionZones(cmd.Context())
	if err != nil {
		return nil, fmt.Errorf("failed to read the grid zones of the carbon scheduler: %w", err)
	}
	sched, err := buildCarbon(f.carbon, regions, os.Getenv)
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(sched.refresher); err != nil {
		return nil, fmt.Errorf("failed to add the carbon intensity refresher: %w", err)
	}
	// A replica that serves the webhook before its first intensities
	// would admit CloudVMs without carbon: it is not ready until then.
	if err := mgr.AddReadyzCheck("carbon-intensities", sched.refresher.Ready); err != nil {
		return nil, fmt.Errorf("failed to add the carbon intensities' readiness check: %w", err)
	}
	return sched, nil
}

// setupWebhook serves the CloudVM admission webhook on the manager's webhook
// server, with the policy engine and the carbon scheduler in-process, when
// --webhook-cert-dir is set. It returns what the start-up line says about
// it.
func setupWebhook(mgr ctrl.Manager, f *controllerFlags, engine *policy.Engine, planner *carbon.Planner) (string, error) {
	if engine == nil {
		return "CloudVM admission webhook off: no --webhook-cert-dir", nil
	}
	// The ledger holds the stored CloudVMs before the first admission plans,
	// on every replica.
	ledger := &webhook.LedgerSync{Cache: mgr.GetCache(), Ledger: planner}
	if err := mgr.Add(ledger); err != nil {
		return "", fmt.Errorf("failed to add the carbon ledger sync: %w", err)
	}
	if err := mgr.AddReadyzCheck("carbon-ledger", ledger.Checker); err != nil {
		return "", err
	}
	wp := webhook.Planner{Policies: engine, Scheduler: planner, Ready: ledger.Wait}
	srv := mgr.GetWebhookServer()
	webhook.NewCloudVMHandler(mgr.GetScheme(), wp, nil).Register(srv)
	if err := mgr.AddReadyzCheck("webhook", srv.StartedChecker()); err != nil {
		return "", err
	}
	return fmt.Sprintf("CloudVM admission webhook on port %d with policy bundle revision %s", f.webhookPort, engine.Revision()), nil
}

// everyReplica runs a runnable on every replica, not only on the leader.
type everyReplica struct{ manager.Runnable }

func (everyReplica) NeedLeaderElection() bool { return false }

// runBootstrap writes what --bootstrap asks for into the management
// cluster. With --bootstrap-webhook-url it returns a runnable that points
// the webhook configurations at a renewed CA (ca.crt of --webhook-cert-dir,
// read every minute): no cainjector serves a management API server of
// Meridian's own.
func runBootstrap(ctx context.Context, cfg *rest.Config, f *controllerFlags) (manager.Runnable, error) {
	b := f.bootstrap
	if !b.enabled {
		if b.webhookURL != "" {
			return nil, fmt.Errorf("invalid --bootstrap-webhook-url: it needs --bootstrap")
		}
		return nil, nil
	}
	o := bootstrap.Options{FieldManager: "meridian-controller", Namespace: f.opts.Namespace, WebhookURL: b.webhookURL, FailurePolicy: b.failurePolicy}
	caFile := filepath.Join(f.webhookCertDir, "ca.crt")
	if b.webhookURL != "" {
		if f.webhookCertDir == "" {
			return nil, fmt.Errorf("invalid --bootstrap-webhook-url: the webhook configurations trust ca.crt of --webhook-cert-dir, which is not set")
		}
		ca, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("invalid --bootstrap-webhook-url: the webhook configurations trust ca.crt of --webhook-cert-dir: %w", err)
		}
		o.WebhookCA = ca
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("failed to create a client of the management cluster: %w", err)
	}
	if err := bootstrap.Apply(ctx, c, o); err != nil {
		return nil, fmt.Errorf("bootstrap of the management cluster: %w", err)
	}
	if b.webhookURL == "" {
		return nil, nil
	}
	return manager.RunnableFunc(func(ctx context.Context) error {
		bootstrap.FollowWebhookCA(ctx, c, o, caFile, time.Minute)
		return nil
	}), nil
}
