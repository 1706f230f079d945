package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/meridian-dev/meridian/internal/join"
)

// clusterPair are the flags that reach the management cluster and a member.
type clusterPair struct {
	kubeconfig, context             string
	memberKubeconfig, memberContext string
}

func (p *clusterPair) add(fl *pflag.FlagSet) {
	fl.StringVar(&p.kubeconfig, "kubeconfig", "", "kubeconfig of the management cluster (default: $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&p.context, "context", "", "kubeconfig context of the management cluster")
	fl.StringVar(&p.memberKubeconfig, "member-kubeconfig", "", "kubeconfig of the member, as a cluster administrator (default: the management cluster's kubeconfig file)")
	fl.StringVar(&p.memberContext, "member-context", "", "kubeconfig context of the member (required)")
}

// run loads both clusters' configurations and calls do with them and the
// Cluster's name, the command's one argument.
func (p *clusterPair) run(do func(ctx context.Context, management, member *rest.Config, name string, out io.Writer) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		management, member, err := p.load()
		if err != nil {
			return err
		}
		return do(cmd.Context(), management, member, args[0], cmd.OutOrStdout())
	}
}

func (p *clusterPair) load() (management, member *rest.Config, err error) {
	if p.memberContext == "" && p.memberKubeconfig == "" {
		return nil, nil, fmt.Errorf("--member-context or --member-kubeconfig: say which cluster to join (a context of the kubeconfig, or a kubeconfig of its own)")
	}
	if management, err = loadKubeconfig(p.kubeconfig, p.context); err != nil {
		return nil, nil, fmt.Errorf("failed to load the management cluster's kubeconfig: %w", err)
	}
	path := p.memberKubeconfig
	if path == "" {
		path = p.kubeconfig
	}
	if member, err = loadKubeconfig(path, p.memberContext); err != nil {
		return nil, nil, fmt.Errorf("failed to load the member's kubeconfig: %w", err)
	}
	return management, member, nil
}

func newJoinCommand() *cobra.Command {
	var pair clusterPair
	var o join.Options
	cmd := &cobra.Command{
		Use:   "join NAME --member-context CONTEXT",
		Short: "Join a member cluster: least-privilege credentials in it, its Cluster in the management cluster",
		Long: `Join makes the member cluster a Meridian member named NAME. In the member it
creates the namespace (when missing), the ServiceAccount the controller acts
as, the member ClusterRole (exactly what the controller does in members,
docs/join.md lists it) and its binding, and a Role that lets that
ServiceAccount renew its own token. In the management cluster it writes a
self-contained kubeconfig Secret holding a short-lived token, and the Cluster.
The controller renews the token before it expires.

Running it again with the same flags changes nothing. It refuses, naming the
reason, when a cluster does not answer, when the member is joined already
under another name, or when a kubeconfig's user lacks a right it needs.`,
		Example: `  meridian join edge-1 --member-context edge-1 --region eu-west-3 --grid-zone FR --label tier=edge
  meridian join edge-1 --member-kubeconfig edge.yaml --dry-run`,
		Args: cobra.ExactArgs(1),
		RunE: pair.run(func(ctx context.Context, management, member *rest.Config, name string, out io.Writer) error {
			o.Name = name
			return join.Join(ctx, management, member, o, out)
		}),
	}
	fl := cmd.Flags()
	pair.add(fl)
	fl.StringVar(&o.Namespace, "namespace", join.DefaultNamespace, "namespace of the ServiceAccount in the member and of the kubeconfig Secret in the management cluster (the controller's)")
	fl.StringVar(&o.Server, "member-server", "", "address at which the controller reaches the member's API server (default: the member kubeconfig's)")
	fl.StringVar(&o.Region, "region", "", "the Cluster's spec.region")
	fl.StringVar(&o.Zone, "zone", "", "the Cluster's spec.zone")
	fl.StringVar(&o.Provider, "provider", "OnPremises", "the Cluster's spec.provider")
	fl.StringVar(&o.GridZone, "grid-zone", "", "the Cluster's spec.gridZone, the electricity grid zone (FR, DE, US-CAL-CISO)")
	fl.StringVar(&o.Jurisdiction, "jurisdiction", "", "the Cluster's spec.jurisdiction, for data residency (DE, EU, US-CA)")
	fl.StringToStringVar(&o.Labels, "label", nil, "labels of the Cluster, which policies select on (key=value, repeatable)")
	fl.DurationVar(&o.TokenTTL, "token-ttl", join.DefaultTokenTTL, "lifetime of the member token (at least 10m); the controller renews it when a third is left")
	fl.StringSliceVar(&o.Resources, "resource", nil, "another kind policies place into this member, as resource.group (ingresses.networking.k8s.io); repeatable")
	fl.StringVar(&o.ProbeImage, "probe-image", "", "image of Meridian to run the member's latency prober with (meridian probe on the host network, docs/latencies.md); none when empty")
	fl.Int32Var(&o.ProbePort, "probe-port", join.DefaultProbePort, "port of the member's nodes the prober answers on")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print what would be written, write nothing")
	return cmd
}

func newUnjoinCommand() *cobra.Command {
	var pair clusterPair
	var o join.UnjoinOptions
	cmd := &cobra.Command{
		Use:   "unjoin NAME --member-context CONTEXT",
		Short: "Take a member out of Meridian, removing what meridian join made on both sides",
		Long: `Unjoin deletes the Cluster NAME (the controller then removes Meridian's
objects from the member) and everything meridian join made: the kubeconfig
Secret, and the member's ServiceAccount, roles, bindings and namespace (when
join created it). It refuses while the member still runs Meridian's
workloads: --drain taints the Cluster NoExecute so that placement moves them
away and waits until they are gone; --force deletes them.`,
		Example: `  meridian unjoin edge-1 --member-context edge-1 --drain`,
		Args:    cobra.ExactArgs(1),
		RunE: pair.run(func(ctx context.Context, management, member *rest.Config, name string, out io.Writer) error {
			o.Name = name
			return join.Unjoin(ctx, management, member, o, out)
		}),
	}
	fl := cmd.Flags()
	pair.add(fl)
	fl.StringVar(&o.Namespace, "namespace", join.DefaultNamespace, "namespace given to meridian join")
	fl.BoolVar(&o.Drain, "drain", false, "taint the Cluster NoExecute and wait until the member holds none of Meridian's objects")
	fl.BoolVar(&o.Force, "force", false, "go on while the member holds Meridian's objects (deleting them), for a Cluster join did not make, and when the controller does not release the Cluster in --timeout")
	fl.DurationVar(&o.Timeout, "timeout", 5*time.Minute, "how long to wait for the drain and for the controller's cleanup")
	return cmd
}
