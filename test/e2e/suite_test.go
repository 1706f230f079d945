package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// world is a running testbed with Meridian's controllers.
type world struct {
	dir     string
	tb      *testbed.Testbed
	mgmt    client.Client
	members map[string]client.Client
	// proxies are the members the controller reaches through a proxy that
	// the test can break (startWith's cut), by name.
	proxies map[string]*testenv.Proxy
}

// start brings up a testbed of profile and runs the controllers on it; both
// stop when t ends.
func start(t *testing.T, profile *testbed.Profile) *world {
	t.Helper()
	return startWith(t, profile, func(string) controller.Options {
		return controller.Options{HeartbeatInterval: 2 * time.Second, HeartbeatTimeout: 2 * time.Second, PendingGrace: 5 * time.Second}
	})
}

// startWith is start with the controller options opts returns for the
// testbed in dir; the controller reaches the members named in cut through a
// proxy (world.proxies) that the test can break to cut them off, while the
// test's own clients reach them directly.
func startWith(t *testing.T, profile *testbed.Profile, opts func(dir string) controller.Options, cut ...string) *world {
	t.Helper()
	return startWorld(t, profile, testbed.Options{}, opts, cut...)
}

// startMeasured is start on a testbed whose members run latency probers
// behind the network that delays them by the profile's latencies, with a
// meridian binary built for the test; it returns once every member reports
// a measured round-trip time to every other.
func startMeasured(t *testing.T, profile *testbed.Profile) *world {
	t.Helper()
	w := startWorld(t, profile, testbed.Options{Probes: true, MeridianBinary: testenv.MeridianBinary(t)}, func(string) controller.Options {
		return controller.Options{HeartbeatInterval: 2 * time.Second, HeartbeatTimeout: 2 * time.Second, PendingGrace: 5 * time.Second}
	})
	w.waitFor(t, time.Minute, "every link measured", func() string {
		var list multiclusterv1alpha1.ClusterList
		if err := w.mgmt.List(t.Context(), &list); err != nil {
			return err.Error()
		}
		for _, c := range list.Items {
			if len(c.Status.Latencies) < len(list.Items)-1 {
				return fmt.Sprintf("%s measured %d links", c.Name, len(c.Status.Latencies))
			}
		}
		return ""
	})
	return w
}

// startWorld is startWith on a testbed started with up's Probes and
// MeridianBinary.
func startWorld(t *testing.T, profile *testbed.Profile, up testbed.Options, opts func(dir string) controller.Options, cut ...string) *world {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping end-to-end test on real clusters in -short mode")
	}
	ctrllog.SetLogger(logr.Discard())
	dir := filepath.Join(t.TempDir(), "testbed")
	t.Cleanup(func() {
		if _, err := testbed.Down(context.Background(), dir); err != nil {
			t.Errorf("failed to stop the testbed: %v", err)
		}
	})
	begin := time.Now()
	tb, err := testbed.Up(t.Context(), testbed.Options{Name: "e2e", Dir: dir, Profile: profile, Probes: up.Probes, MeridianBinary: up.MeridianBinary, Progress: func(p testbed.Progress) {
		// A component restarted after losing its start-up race is worth
		// seeing in the test's log; the other steps are not.
		if p.Step == testbed.StepRestart {
			t.Logf("testbed: %s: %s", p.Cluster, p.Detail)
		}
	}})
	if err != nil {
		t.Fatalf("failed to start the testbed: %v", err)
	}
	t.Logf("testbed %s up in %s", profile.Name, time.Since(begin).Round(100*time.Millisecond))
	w := &world{dir: dir, tb: tb, members: map[string]client.Client{}, proxies: map[string]*testenv.Proxy{}}
	if w.mgmt, err = tb.Management().Client(); err != nil {
		t.Fatal(err)
	}
	for _, m := range tb.Members() {
		if w.members[m.Name], err = m.Client(); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range cut {
		w.proxies[name] = testenv.RouteMemberThroughProxy(t, w.mgmt, tb, name)
	}

	mgr, err := ctrl.NewManager(tb.Management().Config, ctrl.Options{
		Scheme:                 testbed.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Each test starts its own manager in this one process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := controller.Setup(mgr, opts(dir)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			// A runnable that does not stop within the grace period is
			// still running: its stack says which, for the next look.
			var stacks strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
			t.Errorf("controller manager: %v; goroutines still running:\n%s", err, stacks.String())
		}
	})
	w.waitFor(t, 60*time.Second, "members Ready", func() string {
		var list multiclusterv1alpha1.ClusterList
		if err := w.mgmt.List(t.Context(), &list); err != nil {
			return err.Error()
		}
		for _, c := range list.Items {
			if !isTrue(c.Status.Conditions, multiclusterv1alpha1.ClusterReady) {
				return fmt.Sprintf("%s not Ready", c.Name)
			}
		}
		return ""
	})
	return w
}

func (w *world) namespace(t *testing.T, name string) {
	t.Helper()
	if err := w.mgmt.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls check every 200 ms until it returns "" or timeout passes.
func (w *world) waitFor(t *testing.T, timeout time.Duration, what string, check func() string) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if last = check(); last == "" {
			return
		}
	}
	t.Fatalf("%s: not reached within %s: %s", what, timeout, last)
}

func isTrue(conds []metav1.Condition, kind string) bool {
	for _, c := range conds {
		if c.Type == kind {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}
