package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// binDirForTest returns the Kubernetes binaries, failing the test when
// they are missing: `make test` builds them first.
func binDirForTest(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping test that starts real clusters in -short mode")
	}
	dir, err := FindBinDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubectlPath(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// upForTest starts a testbed in a temporary folder and stops it when the
// test ends, whatever happened.
func upForTest(t *testing.T, o Options) (*Testbed, error) {
	t.Helper()
	if o.Dir == "" {
		o.Dir = filepath.Join(t.TempDir(), "testbed")
	}
	t.Cleanup(func() {
		// t.Context() is done by the time cleanups run.
		if _, err := Down(context.Background(), o.Dir); err != nil {
			t.Errorf("failed to stop the testbed: %v", err)
		}
	})
	return Up(t.Context(), o)
}

func TestTestbed(t *testing.T) {
	binDir := binDirForTest(t)
	profile := Uniform(UniformOptions{Clusters: 2, Nodes: 2, CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi")})
	var mu sync.Mutex
	steps := map[string][]string{}
	tb, err := upForTest(t, Options{
		Name:    "e2e",
		BinDir:  binDir,
		Profile: profile,
		Progress: func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			t.Logf("%-10s %-8s %5.1fs  %s", p.Cluster, p.Step, p.Took.Seconds(), p.Detail)
			// A component that lost its start-up race on a busy machine is
			// restarted between steps (TestUpRestarts).
			if p.Step != StepRestart {
				steps[p.Cluster] = append(steps[p.Cluster], p.Step)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	l := layout{dir: tb.Dir}
	mgmt, err := tb.Management().Client()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("progress", func(t *testing.T) {
		want := map[string][]string{
			"management": {StepStart, StepReady, StepCRDs, StepRegister},
			"member-1":   {StepStart, StepReady, StepNodes, StepMetrics},
			"member-2":   {StepStart, StepReady, StepNodes, StepMetrics},
		}
		if diff := cmp.Diff(want, steps); diff != "" {
			t.Errorf("steps reported (-want +got):\n%s", diff)
		}
	})

	t.Run("members registered", func(t *testing.T) {
		list := &multiclusterv1alpha1.ClusterList{}
		if err := mgmt.List(t.Context(), list); err != nil {
			t.Fatal(err)
		}
		type registered struct {
			Name, Region, Zone, Provider, Secret string
			Latencies                            []multiclusterv1alpha1.ClusterLatency
		}
		var got []registered
		for _, c := range list.Items {
			got = append(got, registered{c.Name, c.Spec.Region, c.Spec.Zone, c.Spec.Provider,
				c.Spec.KubeconfigSecretRef.Namespace + "/" + c.Spec.KubeconfigSecretRef.Name, c.Spec.Latencies})
		}
		rtt := metav1.Duration{Duration: 2 * time.Millisecond}
		want := []registered{
			{"member-1", "local", "local-1", "Testbed", "meridian-system/member-1-kubeconfig", []multiclusterv1alpha1.ClusterLatency{{Cluster: "member-2", RTT: rtt}}},
			{"member-2", "local", "local-2", "Testbed", "meridian-system/member-2-kubeconfig", []multiclusterv1alpha1.ClusterLatency{{Cluster: "member-1", RTT: rtt}}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Clusters (-want +got):\n%s", diff)
		}
	})

	// Each kubeconfig, the testbed's file (one context per cluster) and the
	// Secrets (one per member), reaches its own cluster: the nodes it lists
	// carry that cluster's name.
	t.Run("kubeconfigs reach their clusters", func(t *testing.T) {
		file, err := clientcmd.LoadFromFile(tb.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name       string
			kubeconfig func() ([]byte, error)
			context    string
			wantNodes  []string
		}{
			{name: "file, management", context: "e2e-management", wantNodes: nil},
			{name: "file, member-1", context: "e2e-member-1", wantNodes: []string{"member-1-node-1", "member-1-node-2"}},
			{name: "file, member-2", context: "e2e-member-2", wantNodes: []string{"member-2-node-1", "member-2-node-2"}},
			{name: "Secret, member-1", kubeconfig: secretKubeconfig(t, mgmt, "member-1"), wantNodes: []string{"member-1-node-1", "member-1-node-2"}},
			{name: "Secret, member-2", kubeconfig: secretKubeconfig(t, mgmt, "member-2"), wantNodes: []string{"member-2-node-1", "member-2-node-2"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				cfg := clientcmd.NewNonInteractiveClientConfig(*file, tc.context, &clientcmd.ConfigOverrides{}, nil)
				if tc.kubeconfig != nil {
					data, err := tc.kubeconfig()
					if err != nil {
						t.Fatal(err)
					}
					if cfg, err = clientcmd.NewClientConfigFromBytes(data); err != nil {
						t.Fatal(err)
					}
				}
				rest, err := cfg.ClientConfig()
				if err != nil {
					t.Fatal(err)
				}
				c, err := client.New(rest, client.Options{Scheme: Scheme()})
				if err != nil {
					t.Fatal(err)
				}
				nodes := &corev1.NodeList{}
				if err := c.List(t.Context(), nodes); err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, n := range nodes.Items {
					got = append(got, n.Name)
				}
				sort.Strings(got)
				if diff := cmp.Diff(tc.wantNodes, got); diff != "" {
					t.Errorf("nodes (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("nodes ready with the profile's capacity", func(t *testing.T) {
		for _, m := range tb.Members() {
			c := memberClient(t, m)
			nodes := &corev1.NodeList{}
			if err := c.List(t.Context(), nodes); err != nil {
				t.Fatal(err)
			}
			for _, n := range nodes.Items {
				got := fmt.Sprintf("ready=%v cpu=%s memory=%s allocatable-cpu=%s zone=%s",
					nodeSchedulable(&n), n.Status.Capacity.Cpu(), n.Status.Capacity.Memory(),
					n.Status.Allocatable.Cpu(), n.Labels[corev1.LabelTopologyZone])
				want := fmt.Sprintf("ready=true cpu=2 memory=4Gi allocatable-cpu=2 zone=local-%s", strings.TrimPrefix(m.Name, "member-"))
				if got != want {
					t.Errorf("node %s: %s, want %s", n.Name, got, want)
				}
			}
		}
	})

	t.Run("deployment runs on kwok nodes", func(t *testing.T) {
		m := tb.Cluster("member-1")
		c := memberClient(t, m)
		replicas := int32(3)
		labels := map[string]string{"app": "web"}
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: corev1.NamespaceDefault},
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       podSpec("500m", "512Mi"),
				},
			},
		}
		// The same Deployment in the management cluster is a template:
		// nothing there runs it (ManagementControllers).
		template := d.DeepCopy()
		if err := mgmt.Create(t.Context(), template); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(t.Context(), d); err != nil {
			t.Fatal(err)
		}
		var running []string
		waitFor(t, 30*time.Second, "3 pods of web Running", func() (bool, error) {
			pods := &corev1.PodList{}
			if err := c.List(t.Context(), pods, client.InNamespace(corev1.NamespaceDefault), client.MatchingLabels(labels)); err != nil {
				return false, err
			}
			running = nil
			for _, p := range pods.Items {
				// Running on a kwok node of member-1, with an IP from the
				// member's pod CIDR (10.<member>.0.1/16).
				if p.Status.Phase == corev1.PodRunning && strings.HasPrefix(p.Spec.NodeName, "member-1-node-") &&
					strings.HasPrefix(p.Status.PodIP, "10.1.") {
					running = append(running, p.Name)
				}
			}
			return len(running) == 3, nil
		})
		var sets appsv1.ReplicaSetList
		var pods corev1.PodList
		if err := errors.Join(mgmt.List(t.Context(), &sets, client.InNamespace(corev1.NamespaceDefault)),
			mgmt.List(t.Context(), &pods, client.InNamespace(corev1.NamespaceDefault)),
			mgmt.Get(t.Context(), client.ObjectKeyFromObject(template), template)); err != nil {
			t.Fatal(err)
		}
		if len(sets.Items)+len(pods.Items) > 0 || template.Status.ObservedGeneration != 0 {
			t.Errorf("the management cluster ran the Deployment web: %d ReplicaSets, %d pods, status %+v; want none, its controllers off", len(sets.Items), len(pods.Items), template.Status)
		}
	})

	t.Run("pod too big for any node stays pending", func(t *testing.T) {
		c := memberClient(t, tb.Cluster("member-2"))
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "huge", Namespace: corev1.NamespaceDefault},
			Spec:       podSpec("3", "1Gi"), // nodes have 2 CPU
		}
		if err := c.Create(t.Context(), pod); err != nil {
			t.Fatal(err)
		}
		var reason string
		waitFor(t, 30*time.Second, "pod huge marked Unschedulable", func() (bool, error) {
			if err := c.Get(t.Context(), client.ObjectKeyFromObject(pod), pod); err != nil {
				return false, err
			}
			for _, cond := range pod.Status.Conditions {
				if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
					reason = cond.Reason
					return true, nil
				}
			}
			return false, nil
		})
		if reason != corev1.PodReasonUnschedulable || pod.Status.Phase != corev1.PodPending || pod.Spec.NodeName != "" {
			t.Errorf("pod huge: phase %s, node %q, PodScheduled reason %q; want Pending, no node, %s",
				pod.Status.Phase, pod.Spec.NodeName, reason, corev1.PodReasonUnschedulable)
		}
	})

	t.Run("status", func(t *testing.T) {
		st, err := GetStatus(t.Context(), tb.Dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range st.Clusters {
			got = append(got, fmt.Sprintf("%s ready=%v running=%d nodes=%d/%d server=%s",
				c.Name, c.Ready(), c.AliveCount(), c.NodesReady, c.NodesTotal, c.Server))
			if c.RSSBytes <= 0 || c.PSSBytes <= 0 {
				t.Errorf("%s: memory RSS %d PSS %d, want both positive", c.Name, c.RSSBytes, c.PSSBytes)
			}
		}
		want := []string{
			"management ready=true running=5 nodes=0/0 server=" + tb.Management().Server,
			"member-1 ready=true running=6 nodes=2/2 server=" + tb.Cluster("member-1").Server,
			"member-2 ready=true running=6 nodes=2/2 server=" + tb.Cluster("member-2").Server,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("status (-want +got):\n%s", diff)
		}
	})

	t.Run("listens on 127.0.0.1 only", func(t *testing.T) {
		procs, err := l.processes()
		if err != nil {
			t.Fatal(err)
		}
		if len(procs) != 17 {
			t.Errorf("%d processes, want 17 (5 components of each cluster, and metrics-server on the 2 members)", len(procs))
		}
		for _, p := range procs {
			addrs, err := listeningAddresses(p.PID)
			if err != nil {
				t.Fatal(err)
			}
			if len(addrs) == 0 {
				t.Errorf("%s/%s (pid %d) listens on nothing", p.Cluster, p.Component, p.PID)
			}
			for _, a := range addrs {
				if !strings.HasPrefix(a, "127.0.0.1:") {
					t.Errorf("%s/%s (pid %d) listens on %s", p.Cluster, p.Component, p.PID, a)
				}
			}
		}
	})

	t.Run("up again refuses", func(t *testing.T) {
		_, err := Up(t.Context(), Options{Name: "e2e", Dir: tb.Dir, BinDir: binDir, Profile: profile})
		if !errors.Is(err, ErrAlreadyUp) {
			t.Errorf("second Up: error = %v, want ErrAlreadyUp", err)
		}
	})

	t.Run("down leaves no process and is idempotent", func(t *testing.T) {
		before, err := l.processes()
		if err != nil {
			t.Fatal(err)
		}
		res, err := Down(t.Context(), tb.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Existed || len(res.Stopped) != len(before) {
			t.Errorf("Down: existed %v, stopped %d processes; want true, %d", res.Existed, len(res.Stopped), len(before))
		}
		for _, p := range before {
			if alive(p.PID) {
				t.Errorf("%s/%s (pid %d) still alive after Down", p.Cluster, p.Component, p.PID)
			}
		}
		if left := processesMentioning(t, tb.Dir); len(left) > 0 {
			t.Errorf("processes still mention %s after Down: %v", tb.Dir, left)
		}
		if _, err := os.Stat(tb.Dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("testbed folder still there after Down (stat: %v)", err)
		}
		res, err = Down(t.Context(), tb.Dir)
		if err != nil || res.Existed || len(res.Stopped) != 0 {
			t.Errorf("second Down = %+v, %v; want nothing to do", res, err)
		}
	})
}

// binDirWith returns a folder of links to the real binaries, but for the
// scripts given by name; a script's REAL stands for the real binary's
// path.
func binDirWith(t *testing.T, scripts map[string]string) string {
	t.Helper()
	realBin := binDirForTest(t)
	binDir := t.TempDir()
	for _, name := range Binaries {
		path := filepath.Join(binDir, name)
		if script, ok := scripts[name]; ok {
			script = strings.ReplaceAll(script, "REAL", filepath.Join(realBin, name))
			if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.Symlink(filepath.Join(realBin, name), path); err != nil {
			t.Fatal(err)
		}
	}
	return binDir
}

// TestUpFailure starts a management cluster whose kube-scheduler exits at
// every start, and checks that Up restarts it as often as allowed, then
// names the cluster and the component, shows its log, and stops the
// processes that did start.
func TestUpFailure(t *testing.T) {
	binDir := binDirWith(t, map[string]string{"kube-scheduler": `#!/bin/sh
if [ "$1" = "--version" ]; then echo "Kubernetes v1.36.3"; exit 0; fi
echo "E0101 00:00:00.000000 1 server.go:1] scheduler cannot start: testbed failure test" >&2
exit 1
`})
	dir := filepath.Join(t.TempDir(), "testbed")
	var mu sync.Mutex
	restarted := 0
	_, err := upForTest(t, Options{
		Dir: dir, BinDir: binDir, Profile: Uniform(UniformOptions{Clusters: 0}),
		restarts: restartPolicy{Limit: 2, Backoff: 10 * time.Millisecond},
		Progress: func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			if p.Step == StepRestart {
				restarted++
			}
		},
	})
	if err == nil {
		t.Fatal("Up succeeded with a kube-scheduler that exits")
	}
	ce, ok := errors.AsType[*ComponentError](err)
	if !ok {
		t.Fatalf("Up error is not a ComponentError: %v", err)
	}
	type failure struct {
		Component string
		Restarts  int
		Reported  int
	}
	if diff := cmp.Diff(failure{"management/kube-scheduler", 2, 2}, failure{ce.Cluster + "/" + ce.Component, ce.Restarts, restarted}); diff != "" {
		t.Errorf("failing component (-want +got):\n%s", diff)
	}
	for _, want := range []string{`cluster "management": kube-scheduler exited, and again after each of its 2 restarts`, "scheduler cannot start: testbed failure test"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if left := processesMentioning(t, dir); len(left) > 0 {
		t.Errorf("processes left after a failed Up: %v", left)
	}
}

func secretKubeconfig(t *testing.T, mgmt client.Client, cluster string) func() ([]byte, error) {
	return func() ([]byte, error) {
		s := &corev1.Secret{}
		if err := mgmt.Get(t.Context(), client.ObjectKey{Namespace: Namespace, Name: KubeconfigSecretName(cluster)}, s); err != nil {
			return nil, err
		}
		return s.Data[KubeconfigKey], nil
	}
}

func memberClient(t *testing.T, c *Cluster) client.Client {
	t.Helper()
	cl, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func podSpec(cpu, memory string) corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{
		Name:  "app",
		Image: "registry.example/app:1",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(memory),
		}},
	}}}
}

func waitFor(t *testing.T, timeout time.Duration, what string, check func() (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	var last error
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		done, err := check()
		last = err
		return done, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (last error: %v)", what, err, last)
	}
}

// processesMentioning returns the live processes whose command line holds
// dir, whatever started them.
func processesMentioning(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !alive(pid) {
			continue
		}
		if strings.Contains(string(cmdline), dir) {
			out = append(out, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
		}
	}
	return slices.Clip(out)
}
