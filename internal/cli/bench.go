package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/bench"
	"github.com/meridian-dev/meridian/internal/testbed"
)

func newBenchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure Meridian end to end on real local clusters",
	}
	cmd.AddCommand(newBenchE2ECommand(), newBenchSharingCommand())
	return cmd
}

func newBenchSharingCommand() *cobra.Command {
	var (
		dir                string
		ads, pods          int
		consumer, provider string
		timeout            time.Duration
	)
	cmd := &cobra.Command{
		Use:   "sharing",
		Short: "Time virtual nodes and offloaded pods on a sharing testbed (seed 002: 100 virtual nodes in about 2 minutes, a pod Running in about 6 s)",
		Long: `Start a testbed of profile sharing (or use a running one with --testbed), whose
members run 'meridian agent', and measure:

  - --advertisements advertisements written together into the consumer, as the
    provider writes them, until the consumer's agent accepted each and made a
    Ready virtual node for it (seed 002: about 2 minutes for 100; goal 10 s);
  - --pods pods created bound to one of the provider's virtual nodes, one after
    the other, until the twin is Running in the provider and until the consumer
    pod shows Running (seed 002: about 6 s; goal 2 s).

Prints a line a second while it waits, then a table beside the seed's figures.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			tb, stop, err := benchSharingTestbed(ctx, cmd, dir)
			if err != nil {
				return err
			}
			defer stop()
			res, err := bench.Sharing(ctx, bench.SharingOptions{
				Testbed: tb, Consumer: consumer, Provider: provider,
				Advertisements: ads, Pods: pods, Timeout: timeout, Progress: cmd.ErrOrStderr(),
			})
			if err != nil {
				return err
			}
			return bench.SharingTable(cmd.OutOrStdout(), res)
		},
	}
	cmd.Flags().StringVar(&dir, "testbed", "", "folder of a running sharing testbed to use (default: start one and stop it afterwards)")
	cmd.Flags().IntVar(&ads, "advertisements", 100, "advertisements written together")
	cmd.Flags().IntVar(&pods, "pods", 10, "pods offloaded one after the other; the table shows the median")
	cmd.Flags().StringVar(&consumer, "consumer", "home", "the consumer cluster")
	cmd.Flags().StringVar(&provider, "provider", "big", "the provider whose advertisements and virtual nodes are used")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Minute, "limit of each measure")
	return cmd
}

// benchSharingTestbed opens the testbed in dir, or starts a sharing
// testbed, whose agents run this executable, that stop takes down.
func benchSharingTestbed(ctx context.Context, cmd *cobra.Command, dir string) (*testbed.Testbed, func(), error) {
	if dir != "" {
		tb, err := testbed.Open(dir)
		return tb, func() {}, err
	}
	profile, err := testbed.LoadProfile("sharing")
	if err != nil {
		return nil, nil, err
	}
	tmp, err := testbed.DefaultDir("bench-sharing")
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "bench: starting a sharing testbed in %s\n", tmp)
	stop := func() {
		if _, err := testbed.Down(context.WithoutCancel(ctx), tmp); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "bench: failed to stop the testbed: %v\n", err)
		}
	}
	tb, err := testbed.Up(ctx, testbed.Options{Name: "bench-sharing", Dir: tmp, Profile: profile, Progress: func(p testbed.Progress) {
		fmt.Fprintf(cmd.ErrOrStderr(), "  %-10s %-9s %6.1fs  %s\n", p.Cluster, p.Step, p.Took.Seconds(), p.Detail)
	}})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return tb, stop, nil
}

func newBenchE2ECommand() *cobra.Command {
	var (
		dir      string
		runs     int
		replicas []int32
		timeout  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "e2e",
		Short: "Time a MultiClusterDeployment from creation to member Deployments and Running pods (seed 001 Table IV)",
		Long: `Start a seed001 testbed (or use a running one with --testbed), run the controllers,
and time, for 1, 10 and 100 replicas under the cluster-affinity and traffic-aware
policies, how long a MultiClusterDeployment takes from creation until every member
Deployment exists and until every pod is Running. Prints a table beside seed 001's
Table IV.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			tb, stop, err := benchTestbed(ctx, cmd, dir)
			if err != nil {
				return err
			}
			defer stop()
			results, err := bench.E2E(ctx, bench.Options{
				Testbed:  tb,
				Replicas: replicas,
				Policies: []multiclusterv1alpha1.PlacementPolicy{multiclusterv1alpha1.ClusterAffinity, multiclusterv1alpha1.TrafficAware},
				Runs:     runs,
				Timeout:  timeout,
				Progress: cmd.ErrOrStderr(),
			})
			if err != nil {
				return err
			}
			return bench.Table(cmd.OutOrStdout(), results, runs)
		},
	}
	cmd.Flags().StringVar(&dir, "testbed", "", "folder of a running testbed to use (default: start a seed001 testbed and stop it afterwards)")
	cmd.Flags().IntVar(&runs, "runs", 3, "runs of each case; the table shows the median")
	cmd.Flags().Int32SliceVar(&replicas, "replicas", []int32{1, 10, 100}, "sizes to measure")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Minute, "limit of one run")
	return cmd
}

// benchTestbed opens the testbed in dir, or starts a seed001 testbed in a
// temporary folder that stop removes.
func benchTestbed(ctx context.Context, cmd *cobra.Command, dir string) (*testbed.Testbed, func(), error) {
	if dir != "" {
		tb, err := testbed.Open(dir)
		return tb, func() {}, err
	}
	profile, err := testbed.LoadProfile("seed001")
	if err != nil {
		return nil, nil, err
	}
	tmp, err := testbedTempDir()
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "bench: starting a seed001 testbed in %s\n", tmp)
	stop := func() {
		if _, err := testbed.Down(context.WithoutCancel(ctx), tmp); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "bench: failed to stop the testbed: %v\n", err)
		}
	}
	tb, err := testbed.Up(ctx, testbed.Options{Name: "bench", Dir: tmp, Profile: profile})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return tb, stop, nil
}

func testbedTempDir() (string, error) {
	d, err := testbed.DefaultDir("bench")
	if err != nil {
		return "", err
	}
	return filepath.Clean(d), nil
}
