package cli

import (
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/scheme"
	"github.com/meridian-dev/meridian/internal/sharing/broker"
)

type brokerFlags struct {
	managerFlags
	opts broker.Options
	// namespace holds the leader-election Lease.
	namespace string
}

func newBrokerCommand() *cobra.Command {
	f := &brokerFlags{}
	cmd := &cobra.Command{
		Use:   "broker",
		Short: "Run the advertisement broker: members register, publish advertisements, query them, and hand auctions to it",
		Long: `Run Meridian's advertisement broker (seed 002, section 4.3) against the broker's
own Kubernetes API server, which holds all of its state: a broker that restarts
carries on where it stopped.

Members are onboarded by the broker's administrator (meridian broker onboard),
register themselves (meridian broker register), publish advertisements through
their agent (a Peer for the broker with role Consumer and spec.broker), query
the table (meridian broker query, or a CapacityQuery) and let the broker run
their auctions (a Peer for the broker with role Provider and spec.broker).
See docs/broker.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBroker(cmd, f) },
	}
	fl := cmd.Flags()
	f.managerFlags.add(fl, "the broker's API server")
	f.opts.AddFlags(fl)
	fl.StringVar(&f.namespace, "namespace", "meridian-system", "namespace of the leader-election lease")
	cmd.AddCommand(newBrokerOnboardCommand(), newBrokerGrantCommand(), newBrokerRegisterCommand(), newBrokerQueryCommand())
	return cmd
}

// restConfig loads a kubeconfig, saying so when it cannot.
func restConfig(kubeconfig, context string) (*rest.Config, error) {
	cfg, err := loadKubeconfig(kubeconfig, context)
	if err != nil {
		return nil, fmt.Errorf("failed to load the kubeconfig: %w", err)
	}
	return cfg, nil
}

func runBroker(cmd *cobra.Command, f *brokerFlags) error {
	f.opts.Default()
	if err := f.opts.Validate(); err != nil {
		return fmt.Errorf("invalid flags: %w", err)
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(cmd.ErrOrStderr())))
	cfg, err := restConfig(f.kubeconfig, f.context)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme.New(),
		Metrics:                 metricsserver.Options{BindAddress: f.metricsAddr},
		HealthProbeBindAddress:  f.probeAddr,
		LeaderElection:          f.leaderElect,
		LeaderElectionID:        "meridian-broker." + string(f.opts.BrokerID),
		LeaderElectionNamespace: f.namespace,
	})
	if err != nil {
		return fmt.Errorf("failed to create the manager: %w", err)
	}
	if err := broker.Setup(mgr, f.opts, nil); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("failed to add the readiness check: %w", err)
	}
	return mgr.Start(cmd.Context())
}

func newBrokerOnboardCommand() *cobra.Command {
	var kubeconfig, server, id string
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "onboard",
		Short: "Admit a member at the broker and print the kubeconfig it writes into the broker with",
		Long: `Run by the broker's administrator: makes the namespace member-<cluster-id>
in the broker's API server (labelled with the cluster ID, so the broker
attributes what is written there to that member), a service account there that
may write sharing messages into that namespace only, and prints a kubeconfig
with a token of that account. Give it to the member.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := broker.ValidClusterID("cluster-id", sharingv1alpha1.ClusterID(id)); err != nil {
				return err
			}
			cfg, err := restConfig(kubeconfig, "")
			if err != nil {
				return err
			}
			kc, err := broker.Onboard(cmd.Context(), cfg, sharingv1alpha1.ClusterID(id), server, ttl)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(kc)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kubeconfig, "kubeconfig", "", "administrator kubeconfig of the broker's API server")
	fl.StringVar(&id, "cluster-id", "", "the member's cluster ID (a DNS label)")
	fl.StringVar(&server, "server", "", "URL members reach the broker's API server at (default: the kubeconfig's)")
	fl.DurationVar(&ttl, "token-ttl", 365*24*time.Hour, "how long the member's token is valid")
	return cmd
}

func newBrokerGrantCommand() *cobra.Command {
	var kubeconfig, server, namespace string
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "grant",
		Short: "In a member that lends through the broker, make the namespace the broker writes into and print its kubeconfig",
		Long: `Run by a member's administrator, against the member's own API server: makes
the namespace the broker writes quotes, acknowledgements and releases into, a
service account "broker" there that may do nothing else, and prints a
kubeconfig with a token of that account. Register with it (--credentials).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := restConfig(kubeconfig, "")
			if err != nil {
				return err
			}
			kc, user, err := broker.GrantBroker(cmd.Context(), cfg, namespace, server, ttl)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "the broker writes into namespace %q as %q: put both into your Peer for the broker (spec.namespace, spec.identity.username)\n", namespace, user)
			_, err = cmd.OutOrStdout().Write(kc)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kubeconfig, "kubeconfig", "", "administrator kubeconfig of this member's API server")
	fl.StringVar(&namespace, "namespace", "from-broker", "namespace the broker writes into")
	fl.StringVar(&server, "server", "", "URL the broker reaches this member's API server at (default: the kubeconfig's)")
	fl.DurationVar(&ttl, "token-ttl", 365*24*time.Hour, "how long the broker's token is valid")
	return cmd
}

func newBrokerRegisterCommand() *cobra.Command {
	var kubeconfig, credentials, id, role string
	reg := broker.Registration{}
	cmd := &cobra.Command{
		Use:   "register",
		Short: "Register this member at the broker (with the kubeconfig onboard printed)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kc, err := os.ReadFile(kubeconfig)
			if err != nil {
				return fmt.Errorf("kubeconfig %q: %w", kubeconfig, err)
			}
			if credentials != "" {
				if reg.Credentials, err = os.ReadFile(credentials); err != nil {
					return fmt.Errorf("credentials %q: %w", credentials, err)
				}
			}
			reg.ClusterID, reg.Role = sharingv1alpha1.ClusterID(id), sharingv1alpha1.PeerRole(role)
			p, err := broker.Register(cmd.Context(), kc, reg)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "registered %s as %s in namespace %s (identity %s); kubectl get peer -n %s %s shows the broker's decision\n",
				p.Spec.ClusterID, p.Spec.Role, p.Namespace, p.Spec.Identity.Username, p.Namespace, p.Name)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kubeconfig, "kubeconfig", "", "the kubeconfig meridian broker onboard printed for this member")
	fl.StringVar(&id, "cluster-id", "", "this member's cluster ID, as onboarded")
	fl.StringVar(&role, "role", "", "Provider (lends through the broker), Consumer (borrows) or Both")
	fl.StringVar(&reg.Region, "region", "", "this member's region")
	fl.StringVar(&reg.APIServer, "api-server", "", "URL of this member's API server (https://...)")
	fl.StringVar(&credentials, "credentials", "", "kubeconfig file the broker writes into this member with (meridian broker grant); not needed with role Consumer")
	return cmd
}

type queryFlags struct {
	kubeconfig               string
	cpu, memory, maxPrice    string
	region, currency, period string
	limit                    int32
	timeout                  time.Duration
	keep                     bool
}

func newBrokerQueryCommand() *cobra.Command {
	f := &queryFlags{}
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Ask the broker which advertised node shapes run a pod, by region and price",
		Long: `Writes a CapacityQuery into this member's namespace at the broker, waits for the
broker's answer and prints the matching shapes, cheapest first: each is a shape
one node of which runs the whole pod, with its provider, region, how many nodes
and pods per node, and the pod's price per hour.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBrokerQuery(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig meridian broker onboard printed for this member")
	fl.StringVar(&f.cpu, "cpu", "", "the pod's cpu request, e.g. 500m")
	fl.StringVar(&f.memory, "memory", "", "the pod's memory request, e.g. 1Gi")
	fl.StringVar(&f.region, "region", "", "only providers in this region")
	fl.StringVar(&f.maxPrice, "max-price", "", "the most the pod may cost per --period, e.g. 0.25")
	fl.StringVar(&f.currency, "currency", "EUR", "currency of --max-price")
	fl.StringVar(&f.period, "period", "Hour", "period of --max-price: Hour, Day or Month")
	fl.Int32Var(&f.limit, "limit", 20, "most matches shown")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "how long to wait for the broker's answer")
	fl.BoolVar(&f.keep, "keep", false, "keep the CapacityQuery at the broker after printing it")
	return cmd
}

// spec builds the query from the flags, naming the flag that is wrong.
func (f *queryFlags) spec() (sharingv1alpha1.CapacityQuerySpec, error) {
	s := sharingv1alpha1.CapacityQuerySpec{Requests: map[corev1.ResourceName]resource.Quantity{}, Region: f.region, Limit: f.limit}
	for _, r := range []struct {
		flag, v string
		name    corev1.ResourceName
	}{{"cpu", f.cpu, corev1.ResourceCPU}, {"memory", f.memory, corev1.ResourceMemory}} {
		if r.v == "" {
			continue
		}
		q, err := resource.ParseQuantity(r.v)
		if err != nil || q.Sign() <= 0 {
			return s, fmt.Errorf("%s %q: must be a quantity greater than zero, e.g. 500m for cpu or 1Gi for memory", r.flag, r.v)
		}
		s.Requests[r.name] = q
	}
	if len(s.Requests) == 0 {
		return s, fmt.Errorf("cpu or memory: the pod's requests are required, e.g. --cpu 2 --memory 4Gi")
	}
	if f.maxPrice != "" {
		q, err := resource.ParseQuantity(f.maxPrice)
		if err != nil || q.Sign() < 0 {
			return s, fmt.Errorf("max-price %q: must be a decimal not below zero, e.g. 0.25", f.maxPrice)
		}
		s.MaxPrice = &sharingv1alpha1.Money{Amount: q, Currency: f.currency, Period: sharingv1alpha1.PricePeriod(f.period)}
	}
	return s, nil
}

func runBrokerQuery(cmd *cobra.Command, f *queryFlags) error {
	spec, err := f.spec()
	if err != nil {
		return err
	}
	kc, err := os.ReadFile(f.kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig %q: %w", f.kubeconfig, err)
	}
	q, err := broker.Ask(cmd.Context(), kc, spec, f.timeout, !f.keep)
	if err != nil {
		return err
	}
	printMatches(cmd, q)
	return nil
}

func printMatches(cmd *cobra.Command, q *sharingv1alpha1.CapacityQuery) {
	c := meta.FindStatusCondition(q.Status.Conditions, sharingv1alpha1.CapacityQueryAnswered)
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", c.Reason, c.Message)
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PROVIDER\tREGION\tSHAPE\tNODES\tPODS/NODE\tPRICE/HOUR\tEXPIRES")
	for _, m := range q.Status.Matches {
		price := "free"
		if m.Price != nil {
			price = m.Price.Amount.AsDec().String() + " " + m.Price.Currency
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", m.Provider, m.Region, m.Shape, m.Nodes, m.PodsPerNode, price, m.ExpiresAt.UTC().Format(time.RFC3339))
	}
	_ = w.Flush()
}
