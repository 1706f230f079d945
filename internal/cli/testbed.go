package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/testbed"
)

// testbedOptions are the flags every testbed subcommand shares.
type testbedOptions struct {
	name string
	dir  string
}

func newTestbedCommand() *cobra.Command {
	o := &testbedOptions{}
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Start and stop real local clusters (management + members with kwok nodes)",
		Long: `Run real Kubernetes clusters on this machine: a management cluster with
Meridian's CRDs, and member clusters registered in it as Clusters. Each cluster
is etcd, kube-apiserver, kube-controller-manager, kube-scheduler and a kwok
controller, all on 127.0.0.1; kwok fakes the nodes (and only the kubelet), so
pods really schedule, run, or stay Pending when nothing fits.

The binaries are the ones 'make k8s-bin' builds; all state lives in one folder
(--dir), which 'down' removes.`,
		Example: `  meridian testbed up                     # management + 2 members of 3 nodes
  meridian testbed up --profile seed001   # seed 001's five Grid'5000 clusters
  meridian testbed status
  meridian testbed down`,
		Args: cobra.NoArgs,
	}
	f := cmd.PersistentFlags()
	f.StringVar(&o.name, "name", testbed.DefaultName, "name of the testbed; several can run side by side")
	f.StringVar(&o.dir, "dir", "", "folder of the testbed's state (default $XDG_STATE_HOME/meridian/testbed/<name>, or ~/.local/state/...)")
	cmd.AddCommand(
		newTestbedUpCommand(o),
		newTestbedStatusCommand(o),
		newTestbedDownCommand(o),
		newTestbedAddCommand(o),
		newTestbedRemoveCommand(o),
		newTestbedNetworkCommand(),
		newTestbedLoadCommand(o),
		newTestbedProfilesCommand(),
	)
	return cmd
}

func (o *testbedOptions) resolveDir() (string, error) {
	if err := testbed.ValidateName(o.name); err != nil {
		return "", err
	}
	if o.dir != "" {
		return o.dir, nil
	}
	return testbed.DefaultDir(o.name)
}

// flags repeats --name and --dir as the user gave them, for the commands
// an output suggests.
func (o *testbedOptions) flags(cmd *cobra.Command) string {
	var s string
	if o.name != testbed.DefaultName {
		s += " --name " + o.name
	}
	if cmd.Flags().Changed("dir") {
		s += " --dir " + o.dir
	}
	return s
}

type testbedUpOptions struct {
	*testbedOptions
	profile    string
	clusters   int
	nodes      int
	nodeCPU    string
	nodeMemory string
	binDir     string
	timeout    time.Duration
	quiet      bool
	probes     bool
}

func newTestbedUpCommand(parent *testbedOptions) *cobra.Command {
	o := &testbedUpOptions{testbedOptions: parent}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a management cluster and member clusters, and register the members",
		Long: `Start the management cluster and the profile's members in parallel, create
the members' fake nodes, install Meridian's CRDs in the management cluster and
register every member there as a Cluster (kubeconfig in a Secret of
meridian-system, declared latencies from the profile). Then write one
kubeconfig with a context per cluster.

'up' refuses to start over a testbed of the same name whose processes run.
If a cluster fails, every process is stopped and the error shows the last
lines of the failing component's log.`,
		Example: `  meridian testbed up --clusters 3
  meridian testbed up --clusters 2 --nodes 2 --node-cpu 2 --node-memory 4Gi
  meridian testbed up --profile seed001
  meridian testbed up --profile ./my-profile.yaml --name demo`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.profile, "profile", testbed.UniformProfile, "built-in profile (see 'meridian testbed profiles') or a profile file")
	f.IntVar(&o.clusters, "clusters", 2, "number of member clusters (uniform profile)")
	f.IntVar(&o.nodes, "nodes", 3, "nodes per member (uniform profile)")
	f.StringVar(&o.nodeCPU, "node-cpu", "4", "CPU of each node (uniform profile)")
	f.StringVar(&o.nodeMemory, "node-memory", "16Gi", "memory of each node (uniform profile)")
	f.StringVar(&o.binDir, "bin-dir", "", "folder with etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, kwokctl, metrics-server (default: KUBEBUILDER_ASSETS, or the repository's bin/k8s/<version>)")
	f.DurationVar(&o.timeout, "timeout", testbed.DefaultTimeout, "longest time each cluster may take to start")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not report progress")
	f.BoolVar(&o.probes, "probes", true, "when the profile declares latencies, run a latency prober in each member behind a network that delays probes by them, so that the controller measures them")
	return cmd
}

func (o *testbedUpOptions) profileOf(cmd *cobra.Command) (*testbed.Profile, error) {
	uniformFlags := []string{"clusters", "nodes", "node-cpu", "node-memory"}
	if o.profile != testbed.UniformProfile {
		for _, name := range uniformFlags {
			if cmd.Flags().Changed(name) {
				return nil, fmt.Errorf("--%s sizes the uniform profile only, not --profile %s", name, o.profile)
			}
		}
		return testbed.LoadProfile(o.profile)
	}
	if o.clusters < 0 {
		return nil, fmt.Errorf("invalid --clusters %d: must be 0 (management only) or more", o.clusters)
	}
	if o.nodes < 1 {
		return nil, fmt.Errorf("invalid --nodes %d: must be at least 1", o.nodes)
	}
	cpu, err := resource.ParseQuantity(o.nodeCPU)
	if err != nil || cpu.Sign() <= 0 {
		return nil, fmt.Errorf("invalid --node-cpu %q: want a positive quantity such as 4 or 500m", o.nodeCPU)
	}
	mem, err := resource.ParseQuantity(o.nodeMemory)
	if err != nil || mem.Sign() <= 0 {
		return nil, fmt.Errorf("invalid --node-memory %q: want a positive quantity such as 16Gi", o.nodeMemory)
	}
	return testbed.Uniform(testbed.UniformOptions{Clusters: o.clusters, Nodes: o.nodes, CPU: cpu, Memory: mem}), nil
}

func (o *testbedUpOptions) run(cmd *cobra.Command) error {
	profile, err := o.profileOf(cmd)
	if err != nil {
		return err
	}
	dir, err := o.resolveDir()
	if err != nil {
		return err
	}
	binDir := o.binDir
	if binDir == "" {
		if binDir, err = testbed.FindBinDir(); err != nil {
			return err
		}
	}
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if !o.quiet {
		fmt.Fprintf(errOut, "Starting testbed %q: management + %s (profile %s) in parallel\n", o.name, members(len(profile.Clusters)), profile.Name)
		fmt.Fprintf(errOut, "  folder:   %s\n  binaries: %s\n", dir, binDir)
	}
	began := time.Now()
	tb, err := testbed.Up(ctx, testbed.Options{
		Name:     o.name,
		Dir:      dir,
		BinDir:   binDir,
		Profile:  profile,
		Timeout:  o.timeout,
		Progress: o.progress(errOut),
		Probes:   o.probes && len(profile.LatencyMs) > 0,
	})
	if errors.Is(err, testbed.ErrAlreadyUp) {
		return fmt.Errorf("%w\n  see it:   meridian testbed status%s\n  stop it:  meridian testbed down%s", err, o.flags(cmd), o.flags(cmd))
	}
	if err != nil {
		return err
	}
	nodes := 0
	for _, c := range tb.Members() {
		nodes += c.Nodes
	}
	fmt.Fprintf(out, "Testbed %q is up in %.1fs: management + %s, %d nodes, Kubernetes %s.\n\n",
		tb.Name, time.Since(began).Seconds(), members(len(tb.Members())), nodes, tb.KubernetesVersion)
	printTestbedNext(out, tb, o.flags(cmd))
	return nil
}

func members(n int) string { return plural(n, "member", "members") }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (o *testbedUpOptions) progress(w io.Writer) func(testbed.Progress) {
	if o.quiet {
		return nil
	}
	return func(p testbed.Progress) {
		fmt.Fprintf(w, "  %-12s %-9s %5.1fs  %s\n", p.Cluster, p.Step, p.Took.Seconds(), p.Detail)
	}
}

func printTestbedNext(w io.Writer, tb *testbed.Testbed, flags string) {
	lines := [][2]string{
		{"export KUBECONFIG=" + tb.Kubeconfig, "contexts: " + contextList(tb)},
		{"kubectl get mcl", "the members, registered as Clusters"},
	}
	if m := tb.Members(); len(m) > 0 {
		lines = append(lines,
			[2]string{"kubectl -n meridian-system get secrets", "their kubeconfig Secrets"},
			[2]string{"kubectl --context " + m[0].Context + " get nodes", "a member's kwok nodes"})
	}
	lines = append(lines,
		[2]string{"meridian testbed status" + flags, "processes, API servers, nodes, memory"},
		[2]string{"meridian testbed down" + flags, "stop everything and remove the folder"})
	fmt.Fprintln(w, "Next:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, l := range lines {
		fmt.Fprintf(tw, "  %s\t# %s\n", l[0], l[1])
	}
	_ = tw.Flush()
}

func contextList(tb *testbed.Testbed) string {
	names := make([]string, len(tb.Clusters))
	for i, c := range tb.Clusters {
		names[i] = c.Context
	}
	return strings.Join(names, ", ")
}

func newTestbedStatusCommand(o *testbedOptions) *cobra.Command {
	var processes bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show each cluster's processes, API server, nodes and memory",
		Long: `Show each cluster of the testbed, the members added on the way (the testbed
cloud backend's) too: its API server's URL and readiness, how many of its
processes run (five; six on a member, with its metrics-server) and which do
not, its schedulable nodes, and the memory of its processes: RSS counts shared
program text in full for every process, PSS divides it among the processes
sharing it (the PSS column adds up to what the testbed takes). --processes
lists every process.

The command fails when a process is missing, an API server is not ready or a
node is not schedulable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			st, err := testbed.GetStatus(cmd.Context(), dir)
			if errors.Is(err, testbed.ErrNotFound) {
				return fmt.Errorf("%w %q in %s: start one with 'meridian testbed up%s'", testbed.ErrNotFound, o.name, dir, o.flags(cmd))
			}
			if err != nil {
				return err
			}
			printTestbedStatus(cmd.OutOrStdout(), st, processes)
			var bad []string
			for i := range st.Clusters {
				if !st.Clusters[i].Ready() {
					bad = append(bad, st.Clusters[i].Name)
				}
			}
			if len(bad) > 0 {
				return fmt.Errorf("testbed %q is not healthy: %s; restart it with 'meridian testbed down%s' then 'up'",
					st.Name, strings.Join(bad, ", "), o.flags(cmd))
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&processes, "processes", "p", false, "list every process with its pid and memory")
	return cmd
}

func printTestbedStatus(w io.Writer, st *testbed.Status, processes bool) {
	fmt.Fprintf(w, "Testbed %q: %s since %s (%s), profile %s, Kubernetes %s\n",
		st.Name, st.Phase, st.StartedAt.Local().Format(time.DateTime),
		time.Since(st.StartedAt).Round(time.Second), st.Profile, st.KubernetesVersion)
	fmt.Fprintf(w, "  folder:     %s\n  kubeconfig: %s\n\n", st.Dir, st.Kubeconfig)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tROLE\tAPI SERVER\tAPI\tPROCESSES\tNODES READY\tRSS\tPSS")
	var rss, pss int64
	for i := range st.Clusters {
		c := &st.Clusters[i]
		rss += c.RSSBytes
		pss += c.PSSBytes
		api := "ready"
		if c.APIError != "" {
			api = "not ready"
		}
		procs := fmt.Sprintf("%d/%d running", c.AliveCount(), len(c.Components))
		if c.AliveCount() < len(c.Components) {
			var dead []string
			for _, comp := range c.Components {
				if !comp.Alive {
					dead = append(dead, comp.Name)
				}
			}
			procs += " (not running: " + strings.Join(dead, ", ") + ")"
		}
		nodes := fmt.Sprintf("%d/%d", c.NodesReady, c.NodesTotal)
		if c.APIError != "" {
			nodes = "-"
		}
		role := string(c.Role)
		if c.Added {
			// Started by testbed.AddCluster (the testbed cloud backend), not
			// by the profile.
			role += " (added)"
			if c.Phase != testbed.PhaseUp {
				role += ", " + c.Phase
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, role, c.Server, api, procs, nodes, mebibytes(c.RSSBytes), mebibytes(c.PSSBytes))
	}
	fmt.Fprintf(tw, "total\t\t\t\t\t\t%s\t%s\n", mebibytes(rss), mebibytes(pss))
	_ = tw.Flush()

	for i := range st.Clusters {
		if c := &st.Clusters[i]; c.APIError != "" {
			fmt.Fprintf(w, "\n%s: %s", c.Name, c.APIError)
		}
	}
	if processes {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CLUSTER\tCOMPONENT\tPID\tSTATE\tRSS\tPSS")
		for i := range st.Clusters {
			for _, comp := range st.Clusters[i].Components {
				state, rss, pss := "not running", "-", "-"
				if comp.Alive {
					state, rss, pss = "running", mebibytes(comp.RSSBytes), mebibytes(comp.PSSBytes)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", st.Clusters[i].Name, comp.Name, comp.PID, state, rss, pss)
			}
		}
		_ = tw.Flush()
	}
}

func mebibytes(b int64) string {
	return fmt.Sprintf("%d MiB", (b+(1<<19))>>20)
}

func newTestbedDownCommand(o *testbedOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "down",
		Short: "Stop every process of the testbed and remove its folder",
		Long: `Kill every process of the testbed (found in /proc by the folder it runs from,
not only by pid files), check that none is left, and remove the folder with
its kubeconfig, logs and etcd data. Running it again does nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, err := testbed.Down(ctx, dir)
			if err != nil {
				return err
			}
			if !res.Existed {
				fmt.Fprintf(cmd.OutOrStdout(), "No testbed %q in %s: nothing to stop.\n", o.name, dir)
				return nil
			}
			clusters := map[string]bool{}
			for _, p := range res.Stopped {
				clusters[p.Cluster] = true
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Testbed %q is down: stopped %s of %s, none left; removed %s.\n",
				o.name, plural(len(res.Stopped), "process", "processes"), plural(len(clusters), "cluster", "clusters"), dir)
			return nil
		},
	}
}

func newTestbedProfilesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "profiles [NAME]",
		Short: "List the built-in testbed profiles, or show one",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if len(args) == 1 {
				p, err := testbedProfile(args[0])
				if err != nil {
					return err
				}
				printTestbedProfile(out, p)
				return nil
			}
			all, err := testbed.Profiles()
			if err != nil {
				return err
			}
			all = append([]*testbed.Profile{testbed.Uniform(testbed.UniformOptions{Clusters: 2})}, all...)
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tMEMBERS\tNODES\tDESCRIPTION")
			for _, p := range all {
				members, nodes := fmt.Sprint(len(p.Clusters)), 0
				for i := range p.Clusters {
					nodes += p.Clusters[i].NodeCount()
				}
				desc := p.Description
				if p.Name == testbed.UniformProfile {
					members = "--clusters (2)"
					desc = "identical members: --nodes (3) of --node-cpu (4) / --node-memory (16Gi) each, 2ms apart on a line"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", p.Name, members, nodes, desc)
			}
			_ = tw.Flush()
			fmt.Fprintln(out, "\nShow one with 'meridian testbed profiles NAME'; use one with 'meridian testbed up --profile NAME'.")
			return nil
		},
	}
}

func testbedProfile(name string) (*testbed.Profile, error) {
	if name == testbed.UniformProfile {
		return testbed.Uniform(testbed.UniformOptions{Clusters: 2}), nil
	}
	return testbed.LoadProfile(name)
}

func printTestbedProfile(w io.Writer, p *testbed.Profile) {
	fmt.Fprintf(w, "%s: %s\n", p.Name, p.Description)
	if p.Source != "" {
		fmt.Fprintf(w, "source: %s\n", p.Source)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tREGION\tZONE\tNODES")
	for i := range p.Clusters {
		c := &p.Clusters[i]
		pools := make([]string, len(c.Nodes))
		for j, pool := range c.Nodes {
			pools[j] = pool.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Region, c.Zone, strings.Join(pools, ", "))
	}
	_ = tw.Flush()
	if len(p.LatencyMs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nRound-trip times (ms):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for i := range p.Clusters {
		fmt.Fprintf(tw, "%s\t", p.Clusters[i].Name)
	}
	fmt.Fprintln(tw)
	for i := range p.Clusters {
		fmt.Fprintf(tw, "%s\t", p.Clusters[i].Name)
		for j := range p.Clusters {
			cell := "-"
			if d, ok := p.Latency(p.Clusters[i].Name, p.Clusters[j].Name); ok && i != j {
				cell = fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond))
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}
