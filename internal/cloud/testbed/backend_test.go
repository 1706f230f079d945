package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
	localtestbed "github.com/meridian-dev/meridian/internal/testbed"
)

// TestBackend creates, scales and deletes a cloud cluster on a testbed of
// a management cluster alone.
func TestBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping test that starts real clusters in -short mode")
	}
	binDir, err := localtestbed.FindBinDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "testbed")
	t.Cleanup(func() {
		// t.Context() is done by the time cleanups run.
		if _, err := localtestbed.Down(context.Background(), dir); err != nil {
			t.Errorf("failed to stop the testbed: %v", err)
		}
	})
	if _, err := localtestbed.Up(t.Context(), localtestbed.Options{
		Name: "cloud", Dir: dir, BinDir: binDir, Profile: localtestbed.Uniform(localtestbed.UniformOptions{Clusters: 0}),
	}); err != nil {
		t.Fatal(err)
	}
	b := New(dir)
	spec := cloud.Spec{
		Name: "burst-1", Namespace: "default", Provider: "OpenStack", Region: "nancy",
		Pools: []cloud.Pool{{Name: cloud.DefaultPool, NodeCPU: resource.MustParse("4"), NodeMemory: resource.MustParse("16Gi"), Workers: 2}},
	}

	t.Run("not created yet", func(t *testing.T) {
		st, err := b.Status(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
		}
		if st.Exists || st.Ready {
			t.Errorf("Status before Ensure = %+v, want neither existing nor ready", st)
		}
	})

	steps := []struct {
		name        string
		workers     int32
		remove      []string
		wantWorkers []string
	}{
		{name: "ensure 2 workers", workers: 2, wantWorkers: []string{"burst-1-worker-1", "burst-1-worker-2"}},
		{name: "ensure again changes nothing", workers: 2, wantWorkers: []string{"burst-1-worker-1", "burst-1-worker-2"}},
		{
			name: "ensure 3 removing worker-1", workers: 3, remove: []string{"burst-1-worker-1"},
			wantWorkers: []string{"burst-1-worker-2", "burst-1-worker-3", "burst-1-worker-4"},
		},
		{
			name: "ensure 1 removing worker-3", workers: 1, remove: []string{"burst-1-worker-3", "not-a-worker"},
			wantWorkers: []string{"burst-1-worker-2"},
		},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			spec.Pools[0].Workers, spec.Pools[0].Remove = step.workers, step.remove
			if err := b.Ensure(t.Context(), spec); err != nil {
				t.Fatal(err)
			}
			st, err := b.Status(t.Context(), spec)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("exists=%v ready=%v workers=%d/%d message=%q",
				st.Exists, st.Ready, st.ReadyWorkers, st.Workers, st.Message)
			want := fmt.Sprintf("exists=true ready=true workers=%d/%d message=\"\"", step.workers, step.workers)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Status (-want +got):\n%s", diff)
			}
			// The kubeconfig reaches the cluster from this machine and lists
			// its workers.
			cfg, err := clientcmd.RESTConfigFromKubeConfig(st.Kubeconfig)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(cfg.Host, "https://127.0.0.1:") {
				t.Errorf("kubeconfig server %s, want https://127.0.0.1:<port>", cfg.Host)
			}
			c, err := client.New(cfg, client.Options{Scheme: localtestbed.Scheme()})
			if err != nil {
				t.Fatal(err)
			}
			nodes := &corev1.NodeList{}
			if err := c.List(t.Context(), nodes); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range nodes.Items {
				names = append(names, n.Name)
				if got := n.Status.Allocatable.Cpu().String() + " " + n.Labels[corev1.LabelTopologyRegion]; got != "4 nancy" {
					t.Errorf("node %s: cpu and region %q, want \"4 nancy\"", n.Name, got)
				}
			}
			slices.Sort(names)
			if diff := cmp.Diff(step.wantWorkers, names); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("a second pool is a node group of its own", func(t *testing.T) {
		two := spec
		two.Pools = []cloud.Pool{spec.Pools[0], {Name: "large", NodeCPU: resource.MustParse("8"), NodeMemory: resource.MustParse("32Gi"), Workers: 1}}
		two.Pools[0].Remove = nil
		if err := b.Ensure(t.Context(), two); err != nil {
			t.Fatal(err)
		}
		st, err := b.Status(t.Context(), two)
		if err != nil {
			t.Fatal(err)
		}
		want := []cloud.PoolStatus{{Name: cloud.DefaultPool, Workers: 1, ReadyWorkers: 1}, {Name: "large", Workers: 1, ReadyWorkers: 1}}
		if diff := cmp.Diff(want, st.Pools); diff != "" {
			t.Errorf("pools (-want +got):\n%s", diff)
		}
		c, err := client.New(mustConfig(t, st.Kubeconfig), client.Options{Scheme: localtestbed.Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		n := &corev1.Node{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: "burst-1-large-1"}, n); err != nil {
			t.Fatal(err)
		}
		if got := n.Status.Allocatable.Cpu().String() + " " + n.Labels[localtestbed.LabelNodeGroup]; got != "8 large" {
			t.Errorf("node %s: cpu and pool %q, want \"8 large\"", n.Name, got)
		}
	})

	t.Run("a pool whose flavor was removed is reported, then retired", func(t *testing.T) {
		one := spec
		one.Pools = []cloud.Pool{spec.Pools[0]}
		one.Pools[0].Remove = nil
		st, err := b.Status(t.Context(), one)
		if err != nil {
			t.Fatal(err)
		}
		want := []cloud.PoolStatus{{Name: cloud.DefaultPool, Workers: 1, ReadyWorkers: 1}, {Name: "large", Workers: 1, ReadyWorkers: 1, Removed: true}}
		if diff := cmp.Diff(want, st.Pools); diff != "" {
			t.Errorf("pools once large is not in the spec (-want +got):\n%s", diff)
		}
		// Asked for more than it has, a retired pool does not grow.
		retired := one
		retired.Pools = append(slices.Clone(one.Pools), cloud.Pool{Name: "large", Retired: true, Workers: 2})
		if err := b.Ensure(t.Context(), retired); err != nil {
			t.Fatal(err)
		}
		if st, err = b.Status(t.Context(), retired); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, st.Pools); diff != "" {
			t.Errorf("pools after a retired pool asked for more (-want +got):\n%s", diff)
		}
		retired.Pools[1] = cloud.Pool{Name: "large", Retired: true, Remove: []string{"burst-1-large-1"}}
		if err := b.Ensure(t.Context(), retired); err != nil {
			t.Fatal(err)
		}
		if st, err = b.Status(t.Context(), retired); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want[:1], st.Pools); diff != "" {
			t.Errorf("pools after the retired one emptied (-want +got):\n%s", diff)
		}
		// Status keeps one client per cluster.
		before := b.clients[spec.Name].client
		if _, err := b.Status(t.Context(), one); err != nil {
			t.Fatal(err)
		}
		if b.clients[spec.Name].client != before || len(b.clients) != 1 {
			t.Errorf("Status made a new client of cluster %s (%d clients)", spec.Name, len(b.clients))
		}
	})

	t.Run("invalid specs", func(t *testing.T) {
		tests := []struct {
			name   string
			change func(*cloud.Spec)
			want   string
		}{
			{name: "no name", change: func(s *cloud.Spec) { s.Name = "" }, want: "spec.cloudClusterName: Required value"},
			{name: "bad name", change: func(s *cloud.Spec) { s.Name = "Burst_1" }, want: "spec.cloudClusterName: Invalid value"},
			{name: "management", change: func(s *cloud.Spec) { s.Name = localtestbed.ManagementCluster }, want: "is the testbed's management cluster"},
			{name: "no CPU", change: func(s *cloud.Spec) {
				s.Pools = []cloud.Pool{{Name: "medium", NodeMemory: resource.MustParse("16Gi")}}
			}, want: "spec.flavors[medium].cpu: Invalid value"},
			{name: "no memory", change: func(s *cloud.Spec) {
				s.Pools = []cloud.Pool{{Name: "small", NodeCPU: resource.MustParse("2")}}
			}, want: "spec.flavors[small].memory: Invalid value"},
			{name: "negative workers", change: func(s *cloud.Spec) {
				s.Pools = []cloud.Pool{{Name: cloud.DefaultPool, NodeCPU: resource.MustParse("2"), NodeMemory: resource.MustParse("16Gi"), Workers: -1}}
			}, want: "status.desiredNodes: Invalid value: -1"},
			{name: "a pool named like the testbed's nodes", change: func(s *cloud.Spec) {
				s.Pools = []cloud.Pool{{Name: "worker", NodeCPU: resource.MustParse("2"), NodeMemory: resource.MustParse("16Gi")}}
			}, want: "spec.flavors[worker].name: Invalid value"},
			{name: "bad region", change: func(s *cloud.Spec) { s.Region = "Eu West" }, want: "spec.region: Invalid value"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				s := spec
				tc.change(&s)
				err := b.Ensure(t.Context(), s)
				if !errors.Is(err, cloud.ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Ensure error = %v, want ErrInvalidSpec with %q", err, tc.want)
				}
			})
		}
	})

	t.Run("delete leaves no process and is idempotent", func(t *testing.T) {
		if err := b.Delete(t.Context(), spec); err != nil {
			t.Fatal(err)
		}
		st, err := b.Status(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
		}
		if st.Exists {
			t.Errorf("Status after Delete = %+v, want not existing", st)
		}
		// Only the management cluster's processes are left.
		status, err := localtestbed.GetStatus(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		management := map[int]bool{}
		for _, c := range status.Clusters {
			for _, comp := range c.Components {
				management[comp.PID] = true
			}
		}
		for _, p := range processesMentioning(t, dir) {
			if !management[p.pid] {
				t.Errorf("process left after Delete: %d %s", p.pid, p.cmdline)
			}
		}
		if err := b.Delete(t.Context(), spec); err != nil {
			t.Errorf("second Delete: %v", err)
		}
	})
}

type process struct {
	pid     int
	cmdline string
}

// processesMentioning returns the processes whose command line holds dir,
// whatever started them.
func processesMentioning(t *testing.T, dir string) []process {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 || zombie(pid) {
			continue
		}
		if strings.Contains(string(cmdline), dir) {
			out = append(out, process{pid: pid, cmdline: strings.ReplaceAll(string(cmdline), "\x00", " ")})
		}
	}
	return out
}

// zombie reports whether pid has exited and waits for its parent.
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
}

func mustConfig(t *testing.T, kubeconfig []byte) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
