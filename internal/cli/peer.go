package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/peering"
)

// peerFlags are the flags of peer and unpeer.
type peerFlags struct {
	kubeconfig, context, server, region                 string
	peerKubeconfig, peerContext, peerServer, peerRegion string
	direction                                           string
	share                                               int32
	prices                                              []string
	opts                                                peering.Options
}

func (f *peerFlags) add(fl *pflag.FlagSet, terms bool) {
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the first cluster (default: $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.context, "context", "", "kubeconfig context of the first cluster (NAME)")
	fl.StringVar(&f.peerKubeconfig, "peer-kubeconfig", "", "kubeconfig of the second cluster (default: the first's kubeconfig file)")
	fl.StringVar(&f.peerContext, "peer-context", "", "kubeconfig context of the second cluster (PEER)")
	fl.StringVar(&f.opts.Namespace, "namespace", peering.DefaultNamespace, "the agents' namespace in both clusters")
	if !terms {
		return
	}
	fl.StringVar(&f.server, "server", "", "address at which the second cluster's agent reaches the first's API server (default: the first kubeconfig's)")
	fl.StringVar(&f.peerServer, "peer-server", "", "address at which the first cluster's agent reaches the second's API server (default: the second kubeconfig's)")
	fl.StringVar(&f.region, "region", "", "the first cluster's region, on the Peer the second holds")
	fl.StringVar(&f.peerRegion, "peer-region", "", "the second cluster's region, on the Peer the first holds")
	fl.StringVar(&f.direction, "direction", "", "lend (NAME lends to PEER), borrow (NAME borrows from PEER) or both (required)")
	fl.Int32Var(&f.share, "share", 100, "percent of each lending node's spare capacity offered")
	fl.StringSliceVar(&f.prices, "price", nil, "a price the lender asks, RESOURCE=AMOUNT:CURRENCY[:UNIT[:PERIOD]] (cpu=0.04:EUR, memory=0.005:EUR:1Gi:Hour); repeatable")
	fl.DurationVar(&f.opts.TokenTTL, "token-ttl", peering.DefaultTokenTTL, "lifetime of the tokens each side holds of the other; peering again once two thirds passed issues new ones")
}

// sides builds the two sides of NAME and PEER.
func (f *peerFlags) sides(name, peer string, terms bool) (peering.Side, peering.Side, error) {
	a, b := peering.Side{Name: name, Server: f.server, Region: f.region}, peering.Side{Name: peer, Server: f.peerServer, Region: f.peerRegion}
	var err error
	if a.Config, err = loadKubeconfig(f.kubeconfig, f.context); err != nil {
		return a, b, fmt.Errorf("failed to load the kubeconfig of %s: %w", name, err)
	}
	path := f.peerKubeconfig
	if path == "" {
		path = f.kubeconfig
	}
	if f.peerContext == "" && f.peerKubeconfig == "" {
		return a, b, errors.New("--peer-context or --peer-kubeconfig: say how to reach " + peer)
	}
	if b.Config, err = loadKubeconfig(path, f.peerContext); err != nil {
		return a, b, fmt.Errorf("failed to load the kubeconfig of %s: %w", peer, err)
	}
	if !terms {
		return a, b, nil
	}
	prices, err := parsePrices(f.prices)
	if err != nil {
		return a, b, err
	}
	t := &peering.Terms{SharePercent: f.share, Prices: prices}
	switch f.direction {
	case "lend":
		a.Lends = t
	case "borrow":
		b.Lends = t
	case "both":
		a.Lends, b.Lends = t, t
	default:
		return a, b, fmt.Errorf("--direction %q: want lend (%s lends to %s), borrow (%s borrows from %s) or both", f.direction, name, peer, name, peer)
	}
	return a, b, nil
}

// parsePrices reads --price values, naming the one that is wrong.
func parsePrices(values []string) ([]sharingv1alpha1.Price, error) {
	var out []sharingv1alpha1.Price
	for _, v := range values {
		res, rest, ok := strings.Cut(v, "=")
		parts := strings.Split(rest, ":")
		if !ok || res == "" || len(parts) < 2 || len(parts) > 4 {
			return nil, fmt.Errorf("--price %q: want RESOURCE=AMOUNT:CURRENCY[:UNIT[:PERIOD]], for example cpu=0.04:EUR", v)
		}
		p := sharingv1alpha1.Price{Resource: res, Currency: parts[1], Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}
		var err error
		if p.Amount, err = resource.ParseQuantity(parts[0]); err != nil || p.Amount.Sign() < 0 {
			return nil, fmt.Errorf("--price %q: amount %q must be a decimal that is not negative", v, parts[0])
		}
		if len(parts[1]) != 3 || strings.ToUpper(parts[1]) != parts[1] {
			return nil, fmt.Errorf("--price %q: currency %q must be an ISO 4217 code such as EUR", v, parts[1])
		}
		if len(parts) > 2 {
			if p.Unit, err = resource.ParseQuantity(parts[2]); err != nil || p.Unit.Sign() <= 0 {
				return nil, fmt.Errorf("--price %q: unit %q must be a positive quantity such as 1 or 1Gi", v, parts[2])
			}
		}
		if len(parts) > 3 {
			p.Period = sharingv1alpha1.PricePeriod(parts[3])
			if p.Period != sharingv1alpha1.PeriodHour && p.Period != sharingv1alpha1.PeriodDay && p.Period != sharingv1alpha1.PeriodMonth {
				return nil, fmt.Errorf("--price %q: period %q must be Hour, Day or Month", v, parts[3])
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func newPeerCommand() *cobra.Command {
	var f peerFlags
	cmd := &cobra.Command{
		Use:   "peer NAME PEER --context CONTEXT --peer-context CONTEXT --direction lend|borrow|both",
		Short: "Peer two clusters for resource sharing: least-privilege accounts, credentials and Peers on both sides",
		Long: `Peer makes two clusters peers for sharing (docs/sharing.md): in each, the
namespace from-<other> the other writes its sharing messages into, its
ServiceAccount there with a Role limited to them (and, in a cluster that
lends, a ClusterRole for the borrower's twins), the other's credentials (a
kubeconfig with a token of that ServiceAccount) in the Secret peer-<other>,
and the Peer, with the lender's terms. Both clusters need Meridian's CRDs and
an agent ('meridian agent'). Running it again with the same terms changes
nothing; 'meridian unpeer NAME PEER' removes it all.`,
		Example: `  meridian peer home big --context home --peer-context big --direction borrow --share 50 --price cpu=0.04:EUR`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, b, err := f.sides(args[0], args[1], true)
			if err != nil {
				return err
			}
			return peering.Peer(cmd.Context(), a, b, f.opts, cmd.OutOrStdout())
		},
	}
	f.add(cmd.Flags(), true)
	return cmd
}

func newUnpeerCommand() *cobra.Command {
	var f peerFlags
	cmd := &cobra.Command{
		Use:   "unpeer NAME PEER --context CONTEXT --peer-context CONTEXT",
		Short: "Remove everything 'meridian peer' made for two clusters, on both sides",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, b, err := f.sides(args[0], args[1], false)
			if err != nil {
				return err
			}
			return peering.Unpeer(cmd.Context(), a, b, f.opts, cmd.OutOrStdout())
		},
	}
	f.add(cmd.Flags(), false)
	return cmd
}
