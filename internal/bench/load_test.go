package bench

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestLoad runs the load benchmark reduced, on a testbed of three members
// and a separate `meridian controller` process: 100 MultiClusterDeployments
// at once, then a cold start and a restart over 1,000. It checks what the
// full run's table claims, not how long it took: all placed with their
// member Deployments, no member over-committed, every pod Running, and
// the queue drained with every status current after each start.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the load benchmark on real clusters in -short mode")
	}
	bin := testenv.MeridianBinary(t)
	tb := sharedTestbed(t)
	var progress strings.Builder
	res, err := Load(t.Context(), LoadOptions{
		Testbed: tb, Binary: bin, Burst: 100, ColdStart: 1000, Fill: 0.9,
		Timeout: 5 * time.Minute, LogDir: t.TempDir(), Progress: &progress,
	})
	if err != nil {
		t.Fatalf("Load: %v\nprogress:\n%s", err, progress.String())
	}
	var table strings.Builder
	if err := LoadTable(&table, res); err != nil {
		t.Errorf("LoadTable: %v", err)
	}
	t.Logf("\n%s", table.String())

	if got := res.Overcommitted(); len(got) > 0 {
		t.Errorf("over-committed members: %v", got)
	}
	var busiest float64
	for _, u := range res.Burst.Usage {
		busiest = max(busiest, func() float64 { f, _ := u.utilization(); return f }())
	}
	// The burst fills 90% of the CPU in all: a member well above the mean
	// shows that BestFit packed it, so that room promised twice could not
	// have hidden.
	if busiest < 0.9 {
		t.Errorf("the busiest member is at %.0f%%; want at least 90%% (BestFit packs)", 100*busiest)
	}
	if diff := cmp.Diff(map[corev1.PodPhase]int{corev1.PodRunning: res.Burst.Pods}, res.Burst.Phases); diff != "" {
		t.Errorf("pods by phase (-want +got):\n%s", diff)
	}
	for name, s := range map[string]StartResult{"cold start": res.Cold, "restart": res.Restart} {
		if s.MCDs != 1000 || s.Drained == 0 || s.Current == 0 {
			t.Errorf("%s: %+v; want 1000 MultiClusterDeployments drained and current", name, s)
		}
		if s.Memory.RSS == 0 || s.Memory.Peak < s.Memory.RSS {
			t.Errorf("%s: memory %+v; want RSS > 0 and peak >= RSS", name, s.Memory)
		}
	}
}

func TestParseQueue(t *testing.T) {
	text := `# HELP workqueue_depth Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{controller="multiclusterdeployment",name="multiclusterdeployment"} 7
workqueue_depth{controller="cluster",name="cluster"} 3
workqueue_unfinished_work_seconds{controller="multiclusterdeployment",name="multiclusterdeployment"} 0.25
controller_runtime_reconcile_total{controller="multiclusterdeployment",result="success"} 1200
controller_runtime_reconcile_total{controller="multiclusterdeployment",result="error"} 2
controller_runtime_reconcile_total{controller="multiclusterdeployment",result="requeue_after"} 98
controller_runtime_reconcile_total{controller="cluster",result="success"} 40
`
	got, err := parseQueue(strings.NewReader(text), mcdController)
	if err != nil {
		t.Fatal(err)
	}
	want := queue{Depth: 7, Unfinished: 0.25, Reconciles: 1300, Errors: 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseQueue (-want +got):\n%s", diff)
	}
	if _, err := parseQueue(strings.NewReader(`workqueue_depth{name="multiclusterdeployment"} x`+"\n"), mcdController); err == nil {
		t.Error("parseQueue accepted a value that is not a number")
	}
}

func TestProcMemory(t *testing.T) {
	rss, peak, err := procMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || peak < rss {
		t.Errorf("procMemory of this test's process = %d, %d, want 0 < rss <= peak", rss, peak)
	}
	if _, _, err := procMemory(-1); err == nil {
		t.Error("procMemory of a process that does not exist: no error")
	}
}

func TestBurstSizeRefusesWhatMembersCannotHold(t *testing.T) {
	member := usage{Member: "m", Allocatable: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}}
	cpu, err := burstSize([]usage{member}, 30, 0.75) // 60 pods
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cpu.MilliValue(), int64(50); got != want { // 0.75 * 4000m / 60
		t.Errorf("CPU per pod = %dm, want %dm", got, want)
	}
	if _, err := burstSize([]usage{member}, 50, 0.75); err == nil || !strings.Contains(err.Error(), "burst") {
		t.Errorf("burstSize of 100 pods on 110 = %v; want an error naming burst", err)
	}
}
