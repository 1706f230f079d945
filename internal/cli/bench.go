package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/bench"
	"github.com/meridian-dev/meridian/internal/testbed"
)

func newBenchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure Meridian end to end on real local clusters",
		// The controllers a benchmark runs in this process log their
		// errors only: their progress lines would bury the benchmark's.
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			ctrl.SetLogger(zap.New(zap.WriteTo(cmd.ErrOrStderr()), zap.Level(zapcore.ErrorLevel)))
		},
	}
	cmd.AddCommand(newBenchE2ECommand(), newBenchSharingCommand(), newBenchLoadCommand(), newBenchPropagationCommand())
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
			tb, stop, err := benchProfileTestbed(ctx, cmd, dir, "sharing", "bench-sharing")
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
			tb, stop, err := benchProfileTestbed(ctx, cmd, dir, "seed001", "bench")
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

func newBenchLoadCommand() *cobra.Command {
	var (
		dir, profile, binary string
		burst, coldStart     int
		fill                 float64
		timeout              time.Duration
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Create many MultiClusterDeployments at once, then restart the controller over many more (issue 16: 1,000 at once; a cold start over 30,000 within 2 minutes)",
		Long: `Start a testbed (--profile, default seed001; or use a running one with --testbed),
run 'meridian controller' as its own process (this executable, or --binary), and
measure:

  - burst: --burst MultiClusterDeployments of 1 to 3 replicas created at once,
    placed BestFit, their pods asking together for --fill of the members' CPU:
    the time until every one says Placed and its member Deployments hold the
    replicas, each member's requests against its allocatable (none may be
    over-committed), until every pod is Running, and the controller's RSS
    (VmRSS, and VmHWM as the peak);
  - cold start: the controller stopped, --cold-start minus --burst more of 0
    replicas created, the controller started: the time until its
    MultiClusterDeployment work queue is drained after every one was
    reconciled (its metrics), and until every status is of its generation
    and says Placed; then the same for a restart over all of them placed.

Prints progress every few seconds, then the table. The objects live in the
namespace meridian-load, deleted at the end on a --testbed that stays up.
Exits non-zero when a member is over-committed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := bench.LoadOptions{
				Binary: binary, Burst: burst, ColdStart: coldStart, Fill: fill,
				Timeout: timeout, Progress: cmd.ErrOrStderr(), Cleanup: dir != "",
			}
			// Checked before a testbed starts, so that a typo costs nothing.
			if err := opts.Check(); err != nil {
				return err
			}
			var err error
			if opts.Binary, err = controllerBinary(binary); err != nil {
				return err
			}
			ctx := cmd.Context()
			tb, stop, err := benchProfileTestbed(ctx, cmd, dir, profile, "bench-load")
			if err != nil {
				return err
			}
			defer stop()
			logDir, err := os.MkdirTemp("", "meridian-bench-load-")
			if err != nil {
				return err
			}
			var tableErr error
			opts.Testbed, opts.LogDir = tb, logDir
			// The table comes before the cleanup, which takes long.
			opts.Report = func(res *bench.LoadResult) error {
				tableErr = bench.LoadTable(cmd.OutOrStdout(), res)
				return nil
			}
			_, err = bench.Load(ctx, opts)
			return errors.Join(tableErr, err)
		},
	}
	cmd.Flags().StringVar(&dir, "testbed", "", "folder of a running testbed to use (default: start one of --profile and stop it afterwards)")
	cmd.Flags().StringVar(&profile, "profile", "seed001", "testbed profile to start (a built-in name or a file), when --testbed is not given")
	cmd.Flags().StringVar(&binary, "binary", "", "meridian executable that runs the controller (default: this one)")
	cmd.Flags().IntVar(&burst, "burst", 1000, "MultiClusterDeployments created at once")
	cmd.Flags().IntVar(&coldStart, "cold-start", 30000, "MultiClusterDeployments existing when the controller starts again (0: no cold start)")
	cmd.Flags().Float64Var(&fill, "fill", 0.75, "share of the members' CPU the burst asks for, in (0, 1]")
	cmd.Flags().DurationVar(&timeout, "timeout", 15*time.Minute, "limit of each phase")
	return cmd
}

func newBenchPropagationCommand() *cobra.Command {
	var (
		dir, binary    string
		members, nodes int
		opts           bench.PropagationOptions
	)
	cmd := &cobra.Command{
		Use:   "propagation",
		Short: "Run Karmada's performance workload (10 namespaces of 1 ConfigMap, 100 Deployments of 10 replicas and 100 PropagationPolicies, over 10 members of 10 nodes) as plain manifests and Meridian's policies",
		Long: `Start a testbed of --members members of --nodes nodes of Karmada's kwok node
(32 CPU, 256Gi, 110 pods; or use a running one with --testbed), run 'meridian
controller' as its own process (this executable, or --binary), and create
Karmada's performance workload (hack/performance in github.com/karmada-io/karmada
at f8fdd02df376): per namespace one ConfigMap and Deployments of fake-image pods
that mount it, then one PropagationPolicy per Deployment, Karmada's own
(propagateDeps, Divided, Weighted) converted by 'meridian convert karmada', at
--qps objects per second as Karmada's ClusterLoader2 config does (5).

Measures the time from the first creation until every Deployment is placed
(its ResourcePlacement says Placed, its member Deployments hold its replicas,
and every member running one has the ConfigMap), until every pod is Running,
and the controller's CPU time and memory (VmRSS, VmHWM as the peak). Prints
progress every few seconds, then the table (docs/karmada.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Progress = cmd.ErrOrStderr()
			errs := []error{opts.Check()}
			if members < 1 {
				errs = append(errs, fmt.Errorf("invalid --members %d: must be at least 1", members))
			}
			if nodes < 1 {
				errs = append(errs, fmt.Errorf("invalid --nodes %d: must be at least 1", nodes))
			}
			// Checked before a testbed starts, so that a typo costs nothing.
			if err := errors.Join(errs...); err != nil {
				return err
			}
			var err error
			if opts.Binary, err = controllerBinary(binary); err != nil {
				return err
			}
			ctx := cmd.Context()
			tb, stop, err := benchTestbed(ctx, cmd, dir, bench.PerfProfile(members, nodes), "bench-propagation")
			if err != nil {
				return err
			}
			defer stop()
			if opts.LogDir, err = os.MkdirTemp("", "meridian-bench-propagation-"); err != nil {
				return err
			}
			opts.Testbed = tb
			res, err := bench.Propagation(ctx, opts)
			if res != nil && res.Created > 0 {
				err = errors.Join(bench.PropagationTable(cmd.OutOrStdout(), res), err)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "testbed", "", "folder of a running testbed to use (default: start one and stop it afterwards)")
	cmd.Flags().StringVar(&binary, "binary", "", "meridian executable that runs the controller (default: this one)")
	cmd.Flags().IntVar(&members, "members", 10, "members of the testbed to start")
	cmd.Flags().IntVar(&nodes, "nodes", 10, "nodes of each member")
	cmd.Flags().IntVar(&opts.Namespaces, "namespaces", 10, "namespaces, each with one ConfigMap and --deployments Deployments")
	cmd.Flags().IntVar(&opts.Deployments, "deployments", 100, "Deployments (and policies) per namespace")
	cmd.Flags().Int32Var(&opts.Replicas, "replicas", 10, "replicas of each Deployment")
	cmd.Flags().Float64Var(&opts.QPS, "qps", 5, "objects created per second (Karmada's ClusterLoader2 config: 5); -1: all at once")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 30*time.Minute, "limit of the whole run")
	return cmd
}

// controllerBinary is the meridian executable a benchmark runs as
// `meridian controller`: binary (--binary), or this one.
func controllerBinary(binary string) (string, error) {
	if binary != "" {
		return binary, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("failed to find this executable (give --binary): %w", err)
	}
	return exe, nil
}

// benchProfileTestbed opens the testbed in dir, or starts one of profile,
// named name, showing its progress, that stop takes down.
func benchProfileTestbed(ctx context.Context, cmd *cobra.Command, dir, profile, name string) (*testbed.Testbed, func(), error) {
	if dir != "" {
		tb, err := testbed.Open(dir)
		return tb, func() {}, err
	}
	p, err := testbed.LoadProfile(profile)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid --profile %q: %w", profile, err)
	}
	return benchTestbed(ctx, cmd, "", p, name)
}

// benchTestbed opens the testbed in dir, or starts one of p, named name,
// showing its progress, that stop takes down.
func benchTestbed(ctx context.Context, cmd *cobra.Command, dir string, p *testbed.Profile, name string) (*testbed.Testbed, func(), error) {
	if dir != "" {
		tb, err := testbed.Open(dir)
		return tb, func() {}, err
	}
	tmp, err := testbed.DefaultDir(name)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "bench: starting a %s testbed in %s\n", p.Name, tmp)
	stop := func() {
		if _, err := testbed.Down(context.WithoutCancel(ctx), tmp); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "bench: failed to stop the testbed: %v\n", err)
		}
	}
	tb, err := testbed.Up(ctx, testbed.Options{Name: name, Dir: tmp, Profile: p, Progress: func(p testbed.Progress) {
		fmt.Fprintf(cmd.ErrOrStderr(), "  %-10s %-9s %6.1fs  %s\n", p.Cluster, p.Step, p.Took.Seconds(), p.Detail)
	}})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return tb, stop, nil
}
