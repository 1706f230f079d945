package cli

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/scheme"
)

func newLatenciesCommand() *cobra.Command {
	var kubeconfig, kubecontext string
	cmd := &cobra.Command{
		Use:   "latencies",
		Short: "Print the members' measured round-trip times beside the declared ones",
		Long: `Latencies reads every Cluster of the management cluster and prints, for each
pair of members, the round-trip time the first one's prober measured
(status.latencies, with its age), the one declared (spec.latencies), and how
far apart they are; then the largest difference.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadKubeconfig(kubeconfig, kubecontext)
			if err != nil {
				return err
			}
			c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
			if err != nil {
				return err
			}
			var list multiclusterv1alpha1.ClusterList
			if err := c.List(cmd.Context(), &list); err != nil {
				return fmt.Errorf("failed to list Clusters: %w", err)
			}
			return printLatencies(cmd.OutOrStdout(), list.Items, time.Now())
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the management cluster (default: $KUBECONFIG or ~/.kube/config)")
	cmd.Flags().StringVar(&kubecontext, "context", "", "kubeconfig context of the management cluster")
	return cmd
}

// printLatencies writes one row per measured or declared link.
func printLatencies(out io.Writer, clusters []multiclusterv1alpha1.Cluster, now time.Time) error {
	slices.SortFunc(clusters, func(a, b multiclusterv1alpha1.Cluster) int { return strings.Compare(a.Name, b.Name) })
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "from\tto\tmeasured\tage\tdeclared\tdifference\t")
	worst, worstLink, rows := -1.0, "", 0
	for _, c := range clusters {
		declared := map[string]time.Duration{}
		for _, l := range c.Spec.Latencies {
			declared[string(l.Cluster)] = l.RTT.Duration
		}
		measured := map[string]multiclusterv1alpha1.ClusterLatency{}
		for _, l := range c.Status.Latencies {
			measured[string(l.Cluster)] = l
		}
		var others []string
		for _, o := range clusters {
			if o.Name != c.Name {
				others = append(others, o.Name)
			}
		}
		for _, o := range others {
			m, hasM := measured[o]
			d, hasD := declared[o]
			if !hasM && !hasD {
				continue
			}
			mCol, age, dCol, diff := "-", "-", "-", "-"
			if hasM {
				mCol = fmt.Sprintf("%.2fms", ms(m.RTT.Duration))
				if m.MeasuredAt != nil {
					age = now.Sub(m.MeasuredAt.Time).Round(time.Second).String()
				}
			}
			if hasD {
				dCol = fmt.Sprintf("%.2fms", ms(d))
			}
			if hasM && hasD && d > 0 {
				rel := 100 * (ms(m.RTT.Duration) - ms(d)) / ms(d)
				diff = fmt.Sprintf("%+.1f%%", rel)
				if math.Abs(rel) > worst {
					worst, worstLink = math.Abs(rel), c.Name+" → "+o
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, o, mCol, age, dCol, diff)
			rows++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case rows == 0:
		fmt.Fprintln(out, "No latency is measured or declared.")
	case worst < 0:
		fmt.Fprintln(out, "No link is both measured and declared.")
	default:
		fmt.Fprintf(out, "Largest difference between measured and declared: %.1f%% (%s).\n", worst, worstLink)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
