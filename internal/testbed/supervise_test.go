package testbed

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	clocktesting "k8s.io/utils/clock/testing"
)

// startZombie starts a process that exits at once and is not reaped until
// the test ends: a pid that stays taken and is not alive.
func startZombie(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Wait() })
	for alive(cmd.Process.Pid) {
		time.Sleep(time.Millisecond)
	}
	return cmd.Process.Pid
}

func writePID(t *testing.T, l layout, cluster, component string, pid int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(l.pidFile(cluster, component)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.pidFile(cluster, component), []byte(strconv.Itoa(pid)), 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeLog(t *testing.T, l layout, cluster, component, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(l.componentLog(cluster, component)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.componentLog(cluster, component), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSupervisorCheck runs one check of a member whose components run or
// have exited, with the start (kwokctl start cluster) faked: it gives each
// exited component a live process, as kwokctl would.
func TestSupervisorCheck(t *testing.T) {
	const cluster = "member-1"
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	panicLog := "I0101 00:00:00.000000 1 serving.go:1] Generated self-signed cert\n" +
		"panic: unable to load configmap based request-header-client-ca-file: net/http: TLS handshake timeout\n\n" +
		"goroutine 1 [running]:\nmain.main()\n"
	tests := []struct {
		name    string
		exited  []string
		serving bool
		// before is what the supervisor did before this check, now how
		// long after t0 the check runs.
		before   map[string]restarts
		now      time.Duration
		startErr error

		wantStarts   int
		wantReported []string
		wantErr      string
		wantKept     []string
		// wantNotRunning are the components without a live process
		// after the check.
		wantNotRunning []string
	}{
		{
			name:    "all running",
			serving: true,
		},
		{
			name:           "metrics-server exited before the API server is ready: waits",
			exited:         []string{MetricsServer},
			wantNotRunning: []string{MetricsServer},
		},
		{
			name:       "metrics-server exited once the API server is ready: started again",
			exited:     []string{MetricsServer},
			serving:    true,
			wantStarts: 1,
			wantReported: []string{"metrics-server exited (panic: unable to load configmap based request-header-client-ca-file: net/http: TLS handshake timeout); " +
				"started it again, restart 1 of at most 5; the log of the run that exited is LOGS/metrics-server.log.1"},
			wantKept: []string{"metrics-server.log.1"},
		},
		{
			name:       "two exited: both started again by one start",
			exited:     []string{"kube-controller-manager", MetricsServer},
			serving:    true,
			wantStarts: 1,
			wantReported: []string{
				"kube-controller-manager exited (panic: unable to load configmap based request-header-client-ca-file: net/http: TLS handshake timeout); " +
					"started it again, restart 1 of at most 5; the log of the run that exited is LOGS/kube-controller-manager.log.1",
				"metrics-server exited (panic: unable to load configmap based request-header-client-ca-file: net/http: TLS handshake timeout); " +
					"started it again, restart 1 of at most 5; the log of the run that exited is LOGS/metrics-server.log.1",
			},
			wantKept: []string{"kube-controller-manager.log.1", "metrics-server.log.1"},
		},
		{
			name:           "etcd exited: fails at once",
			exited:         []string{"etcd", MetricsServer},
			wantErr:        `cluster "member-1": etcd exited`,
			wantNotRunning: []string{"etcd", MetricsServer},
		},
		{
			name:           "kube-apiserver exited: fails, and nothing starts again",
			exited:         []string{"kube-apiserver", MetricsServer},
			serving:        true,
			wantErr:        `cluster "member-1": kube-apiserver exited`,
			wantNotRunning: []string{"kube-apiserver", MetricsServer},
		},
		{
			name:           "exited again within its backoff: waits",
			exited:         []string{MetricsServer},
			serving:        true,
			before:         map[string]restarts{MetricsServer: {count: 2, last: t0}},
			now:            2*time.Second - time.Millisecond,
			wantNotRunning: []string{MetricsServer},
		},
		{
			name:       "exited again after its backoff: started again",
			exited:     []string{MetricsServer},
			serving:    true,
			before:     map[string]restarts{MetricsServer: {count: 2, last: t0}},
			now:        2 * time.Second,
			wantStarts: 1,
			wantReported: []string{"metrics-server exited (panic: unable to load configmap based request-header-client-ca-file: net/http: TLS handshake timeout); " +
				"started it again, restart 3 of at most 5; the log of the run that exited is LOGS/metrics-server.log.3"},
			wantKept: []string{"metrics-server.log.3"},
		},
		{
			name:           "exited after its last restart: fails",
			exited:         []string{MetricsServer},
			serving:        true,
			before:         map[string]restarts{MetricsServer: {count: 5, last: t0}},
			now:            time.Hour,
			wantErr:        `cluster "member-1": metrics-server exited, and again after each of its 5 restarts`,
			wantNotRunning: []string{MetricsServer},
		},
		{
			name:           "kwokctl fails to start it: fails",
			exited:         []string{MetricsServer},
			serving:        true,
			startErr:       errors.New("kwokctl failed"),
			wantStarts:     1,
			wantErr:        "kwokctl failed",
			wantKept:       []string{"metrics-server.log.1"},
			wantNotRunning: []string{MetricsServer},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := layout{dir: t.TempDir()}
			running := startStray(t)
			exited := map[string]bool{}
			for _, c := range tc.exited {
				exited[c] = true
			}
			for _, c := range RoleMember.Components() {
				pid := running
				if exited[c] {
					pid = startZombie(t)
					writeLog(t, l, cluster, c, panicLog)
				}
				writePID(t, l, cluster, c, pid)
			}
			clk := clocktesting.NewFakePassiveClock(t0.Add(tc.now))
			starts := 0
			var reported []string
			sv := &supervisor{
				l:       l,
				cluster: cluster,
				policy:  defaultRestartPolicy,
				clock:   clk,
				start: func(context.Context) error {
					starts++
					if tc.startErr != nil {
						return tc.startErr
					}
					// Like kwokctl, take a pid that answers signal 0 (a
					// zombie does) for a running component.
					for _, c := range RoleMember.Components() {
						if pid := l.readPID(cluster, c); pid == 0 || syscall.Kill(pid, 0) != nil {
							writePID(t, l, cluster, c, running)
						}
					}
					return nil
				},
				report: func(_ string, _ time.Time, detail string) {
					reported = append(reported, strings.ReplaceAll(detail, filepath.Dir(l.componentLog(cluster, "x")), "LOGS"))
				},
				serving: tc.serving,
			}
			for c, r := range tc.before {
				sv.record(c).count, sv.record(c).last = r.count, r.last
			}

			err := sv.check(t.Context())
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if tc.wantErr == "" && err != nil || !strings.Contains(gotErr, tc.wantErr) {
				t.Errorf("check error = %v, want one containing %q", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantStarts, starts); diff != "" {
				t.Errorf("kwokctl starts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantReported, reported); diff != "" {
				t.Errorf("restarts reported (-want +got):\n%s", diff)
			}
			var notRunning []string
			for _, c := range RoleMember.Components() {
				if !alive(l.readPID(cluster, c)) {
					notRunning = append(notRunning, c)
				}
			}
			if diff := cmp.Diff(tc.wantNotRunning, notRunning); diff != "" {
				t.Errorf("components not running after the check (-want +got):\n%s", diff)
			}
			var kept []string
			entries, _ := os.ReadDir(filepath.Dir(l.componentLog(cluster, "x")))
			for _, e := range entries {
				if !strings.HasSuffix(e.Name(), ".log") {
					kept = append(kept, e.Name())
				}
			}
			if diff := cmp.Diff(tc.wantKept, kept); diff != "" {
				t.Errorf("logs kept (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRestartPolicyBackoff(t *testing.T) {
	var got []time.Duration
	for n := range defaultRestartPolicy.Limit + 1 {
		got = append(got, defaultRestartPolicy.backoff(n))
	}
	want := []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff after each restart (-want +got):\n%s", diff)
	}
}

func TestExitReason(t *testing.T) {
	long := strings.Repeat("x", maxReasonLength+10)
	tests := []struct {
		name string
		log  *string
		want string
	}{
		{
			name: "panic with its stack",
			log: ptr("I0101 00:00:00.000000 1 a.go:1] starting\n" +
				"E0101 00:00:01.000000 1 a.go:2] cannot list\n" +
				"panic: unable to load configmap based request-header-client-ca-file: TLS handshake timeout\n\n" +
				"goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n"),
			want: "panic: unable to load configmap based request-header-client-ca-file: TLS handshake timeout",
		},
		{
			name: "last error klog wrote",
			log: ptr("E0101 00:00:01.000000 1 a.go:2] first\n" +
				"F0101 00:00:02.000000 1 a.go:3] failed to wait for apiserver being healthy\n" +
				"I0101 00:00:02.000000 1 a.go:4] shutting down\n"),
			want: "F0101 00:00:02.000000 1 a.go:3] failed to wait for apiserver being healthy",
		},
		{
			name: "else the last line",
			log:  ptr("starting\nkilled\n\n"),
			want: "killed",
		},
		{
			name: "cut when long",
			log:  ptr(long + "\n"),
			want: long[:maxReasonLength] + "...",
		},
		{
			name: "empty log",
			log:  ptr(""),
			want: "its log is empty",
		},
		{
			name: "no log",
			want: "cannot read its log",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.log")
			if tc.log != nil {
				if err := os.WriteFile(path, []byte(*tc.log), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got := exitReason(path)
			if tc.log == nil {
				got, _, _ = strings.Cut(got, ":")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("exitReason (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestUpRestarts starts a testbed whose member's metrics-server exits at
// its first start, as it does when it loses the race with its API server
// on a busy machine (the panic is the one seen then), and checks that Up
// starts it again once the API server is ready, reports why, keeps the
// log of the run that exited, and comes up with every component running
// and metrics.k8s.io served.
func TestUpRestarts(t *testing.T) {
	// The first start (not --version, which kwokctl runs first) takes the
	// marker and fails; later ones run the real metrics-server, under the
	// path kwokctl started the script from.
	marker := filepath.Join(t.TempDir(), "failed-once")
	binDir := binDirWith(t, map[string]string{MetricsServer: `#!/bin/bash
if [ "$1" != "--version" ] && mkdir ` + marker + ` 2>/dev/null; then
  echo "panic: unable to load configmap based request-header-client-ca-file: Get \"https://127.0.0.1:1/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication\": net/http: TLS handshake timeout" >&2
  exit 2
fi
exec -a "$0" REAL "$@"
`})
	var mu sync.Mutex
	var restarts []string
	tb, err := upForTest(t, Options{
		Name:    "restarts",
		BinDir:  binDir,
		Profile: Uniform(UniformOptions{Clusters: 1, Nodes: 1, CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi")}),
		Progress: func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			t.Logf("%-10s %-8s %5.1fs  %s", p.Cluster, p.Step, p.Took.Seconds(), p.Detail)
			if p.Step == StepRestart {
				restarts = append(restarts, p.Cluster+": "+p.Detail)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	l := layout{dir: tb.Dir}
	kept := l.componentLog("member-1", MetricsServer) + ".1"
	panicLine := `panic: unable to load configmap based request-header-client-ca-file: Get "https://127.0.0.1:1/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication": net/http: TLS handshake timeout`
	want := []string{"member-1: metrics-server exited (" + panicLine + "); started it again, restart 1 of at most 5; the log of the run that exited is " + kept}
	if diff := cmp.Diff(want, restarts); diff != "" {
		t.Errorf("restarts reported (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), panicLine) {
		t.Errorf("log of the run that exited, %s, lacks the panic:\n%s", kept, data)
	}
	st, err := GetClusterStatus(t.Context(), tb.Dir, "member-1")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Ready() || st.AliveCount() != len(RoleMember.Components()) {
		t.Errorf("member-1: ready %v, %d of %d components running; want all", st.Ready(), st.AliveCount(), len(RoleMember.Components()))
	}
}
