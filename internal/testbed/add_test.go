package testbed

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/cloud"
)

// TestAddCluster adds two clusters to a running testbed at once, scales
// one's nodes, breaks and re-adds it, removes it, and stops the other
// with Down.
func TestAddCluster(t *testing.T) {
	binDir := binDirForTest(t)
	tb, err := upForTest(t, Options{
		Name:    "grow",
		BinDir:  binDir,
		Profile: Uniform(UniformOptions{Clusters: 1, Nodes: 1, CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi")}),
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := tb.Dir
	l := layout{dir: dir}
	burst := ClusterSpec{Name: "burst-1", Region: "cloud", Zone: "cloud-a"}
	other := ClusterSpec{Name: "burst-2", Region: "cloud", SchedulerConfig: cloud.PackingSchedulerConfig}

	t.Run("two at once take turns", func(t *testing.T) {
		var wg sync.WaitGroup
		added := make([]*AddedCluster, 2)
		errs := make([]error, 2)
		for i, spec := range []ClusterSpec{burst, other} {
			wg.Go(func() { added[i], errs[i] = AddCluster(t.Context(), dir, spec) })
		}
		wg.Wait()
		for i := range added {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if !added[i].Started || !added[i].Added || added[i].Role != RoleMember {
				t.Errorf("%s: started %v, added %v, role %s; want true, true, member", added[i].Name, added[i].Started, added[i].Added, added[i].Role)
			}
		}
	})

	t.Run("a cluster that packs puts pods on the fullest node", func(t *testing.T) {
		if _, err := SetNodes(t.Context(), dir, other.Name, NodeSize{CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi")}, 2, nil); err != nil {
			t.Fatal(err)
		}
		c, err := OpenCluster(dir, other.Name)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := c.Client()
		if err != nil {
			t.Fatal(err)
		}
		// One pod at a time, so that the second is scored against the
		// first: MostAllocated puts it beside it, LeastAllocated would not.
		for i := range 2 {
			p := &corev1.Pod{}
			p.Name, p.Namespace = fmt.Sprintf("packed-%d", i), "default"
			p.Spec.Containers = []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}}}}
			if err := cl.Create(t.Context(), p); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for cl.Get(t.Context(), client.ObjectKeyFromObject(p), p) == nil && p.Spec.NodeName == "" && time.Now().Before(deadline) {
				time.Sleep(200 * time.Millisecond)
			}
		}
		nodes := map[string]int{}
		for i := range 2 {
			p := &corev1.Pod{}
			if err := cl.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: fmt.Sprintf("packed-%d", i)}, p); err != nil {
				t.Fatal(err)
			}
			nodes[p.Spec.NodeName]++
		}
		if len(nodes) != 1 || nodes[""] > 0 {
			t.Errorf("pods per node %v, want both on one node", nodes)
		}
		for i := range 2 {
			p := &corev1.Pod{}
			p.Name, p.Namespace = fmt.Sprintf("packed-%d", i), "default"
			if err := cl.Delete(t.Context(), p); client.IgnoreNotFound(err) != nil {
				t.Fatal(err)
			}
		}
		if _, err := SetNodes(t.Context(), dir, other.Name, NodeSize{CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi")}, 0, nil); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("listed by status with metrics-server", func(t *testing.T) {
		st, err := GetStatus(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range st.Clusters {
			got = append(got, fmt.Sprintf("%s added=%v phase=%s ready=%v running=%d nodes=%d/%d",
				c.Name, c.Added, c.Phase, c.Ready(), c.AliveCount(), c.NodesReady, c.NodesTotal))
		}
		want := []string{
			"management added=false phase= ready=true running=5 nodes=0/0",
			"member-1 added=false phase= ready=true running=6 nodes=1/1",
			"burst-1 added=true phase=Up ready=true running=6 nodes=0/0",
			"burst-2 added=true phase=Up ready=true running=6 nodes=0/0",
		}
		// The two additions took turns in either order.
		sort.Strings(got[2:])
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("status (-want +got):\n%s", diff)
		}
	})

	t.Run("again returns it as it is", func(t *testing.T) {
		before, err := OpenCluster(dir, burst.Name)
		if err != nil {
			t.Fatal(err)
		}
		again, err := AddCluster(t.Context(), dir, burst)
		if err != nil {
			t.Fatal(err)
		}
		if again.Started || again.Server != before.Server {
			t.Errorf("second AddCluster: started %v on %s; want false on %s", again.Started, again.Server, before.Server)
		}
	})

	t.Run("kubeconfig file has its context", func(t *testing.T) {
		cfg, err := clientcmd.LoadFromFile(tb.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(cfg.Contexts))
		want := []string{"grow-burst-1", "grow-burst-2", "grow-management", "grow-member-1"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("contexts (-want +got):\n%s", diff)
		}
	})

	t.Run("scale 0 to 3 to 1 with a named removal", func(t *testing.T) {
		size := NodeSize{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), Pods: 30}
		c := addedClient(t, dir, burst.Name)
		steps := []struct {
			count        int
			remove       []string
			wantCreated  []string
			wantDeleted  []string
			wantWorkers  []string
			wantNodeList string
		}{
			{
				count:        3,
				wantCreated:  []string{"burst-1-worker-1", "burst-1-worker-2", "burst-1-worker-3"},
				wantWorkers:  []string{"burst-1-worker-1", "burst-1-worker-2", "burst-1-worker-3"},
				wantNodeList: "burst-1-worker-1 burst-1-worker-2 burst-1-worker-3",
			},
			{
				count:        1,
				remove:       []string{"burst-1-worker-2"},
				wantDeleted:  []string{"burst-1-worker-2", "burst-1-worker-3"},
				wantWorkers:  []string{"burst-1-worker-1"},
				wantNodeList: "burst-1-worker-1",
			},
		}
		for _, step := range steps {
			change, err := SetNodes(t.Context(), dir, burst.Name, size, step.count, step.remove)
			if err != nil {
				t.Fatal(err)
			}
			want := NodeChange{Created: step.wantCreated, Deleted: step.wantDeleted, Workers: step.wantWorkers}
			if diff := cmp.Diff(want, *change); diff != "" {
				t.Errorf("SetNodes(%d, remove %v) (-want +got):\n%s", step.count, step.remove, diff)
			}
			nodes := &corev1.NodeList{}
			if err := c.List(t.Context(), nodes); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range nodes.Items {
				names = append(names, n.Name)
				got := fmt.Sprintf("ready=%v cpu=%s memory=%s pods=%s region=%s zone=%s cluster=%s",
					nodeSchedulable(&n), n.Status.Allocatable.Cpu(), n.Status.Allocatable.Memory(), n.Status.Allocatable.Pods(),
					n.Labels[corev1.LabelTopologyRegion], n.Labels[corev1.LabelTopologyZone], n.Labels[LabelCluster])
				if want := "ready=true cpu=4 memory=16Gi pods=30 region=cloud zone=cloud-a cluster=burst-1"; got != want {
					t.Errorf("node %s: %s, want %s", n.Name, got, want)
				}
			}
			sort.Strings(names)
			if diff := cmp.Diff(step.wantNodeList, strings.Join(names, " ")); diff != "" {
				t.Errorf("nodes after SetNodes(%d) (-want +got):\n%s", step.count, diff)
			}
		}
		st, err := GetClusterStatus(t.Context(), dir, burst.Name)
		if err != nil {
			t.Fatal(err)
		}
		if st.NodesTotal != 1 || st.NodesReady != 1 {
			t.Errorf("GetClusterStatus: nodes %d/%d ready, want 1/1", st.NodesReady, st.NodesTotal)
		}
	})

	t.Run("refuses the profile's clusters", func(t *testing.T) {
		if _, err := AddCluster(t.Context(), dir, ClusterSpec{Name: "member-1"}); !errors.Is(err, ErrProfileCluster) {
			t.Errorf("AddCluster(member-1) error = %v, want ErrProfileCluster", err)
		}
		for _, name := range []string{"management", "member-1"} {
			if err := RemoveCluster(t.Context(), dir, name); !errors.Is(err, ErrProfileCluster) {
				t.Errorf("RemoveCluster(%s) error = %v, want ErrProfileCluster", name, err)
			}
		}
		if _, err := GetClusterStatus(t.Context(), dir, "nowhere"); !errors.Is(err, ErrClusterNotFound) {
			t.Errorf("GetClusterStatus(nowhere) error = %v, want ErrClusterNotFound", err)
		}
	})

	t.Run("a broken one is started again", func(t *testing.T) {
		procs, err := l.processes()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			if p.Cluster == burst.Name && p.Component == "kube-apiserver" {
				if err := syscall.Kill(p.PID, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
		}
		waitFor(t, 30*time.Second, "kube-apiserver of burst-1 gone", func() (bool, error) {
			return l.deadComponent(burst.Name) == "kube-apiserver", nil
		})
		added, err := AddCluster(t.Context(), dir, burst)
		if err != nil {
			t.Fatal(err)
		}
		if !added.Started {
			t.Errorf("AddCluster of a broken cluster did not start it again")
		}
		st, err := GetClusterStatus(t.Context(), dir, burst.Name)
		if err != nil {
			t.Fatal(err)
		}
		// Started again from nothing: no node.
		if !st.Ready() || st.AliveCount() != 6 || st.NodesTotal != 0 {
			t.Errorf("after re-adding: ready %v, running %d, nodes %d; want true, 6, 0", st.Ready(), st.AliveCount(), st.NodesTotal)
		}
	})

	t.Run("remove leaves no trace and is idempotent", func(t *testing.T) {
		clusterDir := l.clusterDir(burst.Name)
		if err := RemoveCluster(t.Context(), dir, burst.Name); err != nil {
			t.Fatal(err)
		}
		if left := processesMentioning(t, clusterDir); len(left) > 0 {
			t.Errorf("processes of burst-1 left: %v", left)
		}
		for _, p := range []string{clusterDir, l.kwokctlConfig(burst.Name)} {
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s still there after RemoveCluster (stat: %v)", p, err)
			}
		}
		if _, err := GetClusterStatus(t.Context(), dir, burst.Name); !errors.Is(err, ErrClusterNotFound) {
			t.Errorf("GetClusterStatus after RemoveCluster: error = %v, want ErrClusterNotFound", err)
		}
		cfg, err := clientcmd.LoadFromFile(tb.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cfg.Contexts["grow-burst-1"]; ok {
			t.Errorf("kubeconfig still has context grow-burst-1")
		}
		if err := RemoveCluster(t.Context(), dir, burst.Name); err != nil {
			t.Errorf("second RemoveCluster: %v", err)
		}
	})

	t.Run("down stops the added clusters too", func(t *testing.T) {
		if _, err := Down(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
		if left := processesMentioning(t, dir); len(left) > 0 {
			t.Errorf("processes left after Down: %v", left)
		}
		if err := RemoveCluster(t.Context(), dir, other.Name); err != nil {
			t.Errorf("RemoveCluster without a testbed: %v", err)
		}
	})
}

func addedClient(t *testing.T, dir, cluster string) client.Client {
	t.Helper()
	c, err := OpenCluster(dir, cluster)
	if err != nil {
		t.Fatal(err)
	}
	return memberClient(t, c)
}
