package chaos_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// Timing of the controllers under test: short, so that a fault is noticed
// and repaired within seconds.
const (
	heartbeatInterval = 2 * time.Second
	heartbeatTimeout  = 2 * time.Second
	pendingGrace      = 5 * time.Second
	failoverGrace     = 10 * time.Second
	orphanSweep       = 5 * time.Second
)

// world is a running testbed and the clients of its clusters.
type world struct {
	tb      *testbed.Testbed
	mgmt    client.Client
	members map[string]client.Client
	// names are the members in profile order.
	names []string
}

// startTestbed brings up a uniform testbed of n members; it stops when t
// ends.
func startTestbed(t *testing.T, n int) *world {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping chaos test on real clusters in -short mode")
	}
	dir := filepath.Join(t.TempDir(), "testbed")
	t.Cleanup(func() {
		if _, err := testbed.Down(context.Background(), dir); err != nil {
			t.Errorf("failed to stop the testbed: %v", err)
		}
	})
	begin := time.Now()
	tb, err := testbed.Up(t.Context(), testbed.Options{Name: "chaos", Dir: dir, Profile: testbed.Uniform(testbed.UniformOptions{Clusters: n})})
	if err != nil {
		t.Fatalf("failed to start the testbed: %v", err)
	}
	t.Logf("testbed of %d members up in %s", n, time.Since(begin).Round(100*time.Millisecond))
	w := &world{tb: tb, members: map[string]client.Client{}}
	if w.mgmt, err = tb.Management().Client(); err != nil {
		t.Fatal(err)
	}
	for _, m := range tb.Members() {
		if w.members[m.Name], err = m.Client(); err != nil {
			t.Fatal(err)
		}
		w.names = append(w.names, m.Name)
	}
	return w
}

// replica is one `meridian controller` process that can be killed and
// started again.
type replica struct {
	t    *testing.T
	bin  string
	args []string
	log  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	// from is where the log of the current run starts.
	from int64
}

// newReplica returns a stopped controller replica of the testbed in w; its
// output goes to a file in t's temporary folder. t's cleanup kills it.
func newReplica(t *testing.T, w *world, bin, name string, leaderElect bool) *replica {
	t.Helper()
	r := &replica{t: t, bin: bin, log: filepath.Join(t.TempDir(), name+".log"), args: []string{
		"controller",
		"--kubeconfig", w.tb.Kubeconfig,
		fmt.Sprintf("--leader-elect=%v", leaderElect),
		"--namespace", testbed.Namespace,
		"--metrics-bind-address", "0",
		"--health-probe-bind-address", "0",
		"--heartbeat-interval", heartbeatInterval.String(),
		"--heartbeat-timeout", heartbeatTimeout.String(),
		"--pending-grace", pendingGrace.String(),
		"--failover-grace", failoverGrace.String(),
		"--orphan-sweep-interval", orphanSweep.String(),
	}}
	t.Cleanup(func() {
		r.kill()
		if t.Failed() {
			t.Logf("%s: last lines of its log:\n%s", name, tail(r.log, 40))
		}
	})
	return r
}

// start runs the replica; it must not be running.
func (r *replica) start() {
	r.t.Helper()
	f, err := os.OpenFile(r.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	from, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		r.t.Fatal(err)
	}
	cmd := exec.Command(r.bin, r.args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("failed to start the controller: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	r.mu.Lock()
	r.cmd, r.done, r.from = cmd, done, from
	r.mu.Unlock()
}

// leads reports whether the replica runs and its current run has taken
// the leader lease: client-go's leader election logs "Successfully
// acquired lease" ("successfully" before v0.33), and a replica that loses
// the lease exits.
func (r *replica) leads() bool {
	r.mu.Lock()
	running, from := r.cmd != nil, r.from
	r.mu.Unlock()
	if !running {
		return false
	}
	data, err := os.ReadFile(r.log)
	if err != nil || int64(len(data)) < from {
		return false
	}
	return bytes.Contains(data[from:], []byte("uccessfully acquired lease"))
}

// kill sends SIGKILL to the replica, if it runs, and waits for it to exit.
func (r *replica) kill() {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.cmd = nil
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// alive reports whether the replica's process still runs.
func (r *replica) alive() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return false
	}
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// waitFor polls check every 500 ms until it returns "" or timeout passes,
// and returns the last answer ("" when reached).
func waitFor(ctx context.Context, timeout time.Duration, check func() string) string {
	var last string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); {
		if last = check(); last == "" {
			return ""
		}
		select {
		case <-ctx.Done():
			return ctx.Err().Error()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return last
}

// membersReady returns "" when every member Cluster is Ready.
func (w *world) membersReady(ctx context.Context) string {
	var list multiclusterv1alpha1.ClusterList
	if err := w.mgmt.List(ctx, &list); err != nil {
		return err.Error()
	}
	if len(list.Items) < len(w.names) {
		return fmt.Sprintf("%d of %d Clusters registered", len(list.Items), len(w.names))
	}
	for _, c := range list.Items {
		if !isTrue(c.Status.Conditions, multiclusterv1alpha1.ClusterReady) {
			return fmt.Sprintf("%s not Ready", c.Name)
		}
	}
	return ""
}

func isTrue(conds []metav1.Condition, kind string) bool {
	for _, c := range conds {
		if c.Type == kind {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}
