package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestPropagation runs the propagation benchmark (Karmada's performance
// workload) reduced, on the package's testbed and a separate `meridian
// controller` process: 2 namespaces of 4 Deployments of 2 replicas, all
// at once. It checks what the full run's table claims: every Deployment
// placed with its member Deployments, the ConfigMap in every member that
// runs a replica, every pod Running, the controller's CPU and memory read.
func TestPropagation(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the propagation benchmark on real clusters in -short mode")
	}
	var progress strings.Builder
	res, err := Propagation(t.Context(), PropagationOptions{
		Testbed: sharedTestbed(t), Binary: testenv.MeridianBinary(t), Namespaces: 2, Deployments: 4, Replicas: 2, QPS: -1,
		Timeout: 5 * time.Minute, LogDir: t.TempDir(), Progress: &progress,
	})
	if err != nil {
		t.Fatalf("Propagation: %v\nprogress:\n%s", err, progress.String())
	}
	var table strings.Builder
	if err := PropagationTable(&table, res); err != nil {
		t.Errorf("PropagationTable: %v", err)
	}
	t.Logf("\n%s", table.String())
	if res.Objects != 2*2+2*4*2 || res.Deployments != 8 || res.Pods != 16 || res.Members != 3 {
		t.Errorf("result %+v; want 20 objects, 8 Deployments, 16 pods, 3 members", res)
	}
	// 2 replicas spread over the three members: two of them run each
	// Deployment, so each namespace's ConfigMap is in at least two.
	if res.ConfigMaps < 2*2 {
		t.Errorf("%d ConfigMap copies in the members; want at least 4", res.ConfigMaps)
	}
	if res.Placed < res.Created || res.Running < res.Placed {
		t.Errorf("created %s, placed %s, running %s: want created <= placed <= running", res.Created, res.Placed, res.Running)
	}
	if res.CPU <= 0 || res.Memory.RSS == 0 || res.Memory.Peak < res.Memory.RSS {
		t.Errorf("controller CPU %s, memory %+v; want both measured", res.CPU, res.Memory)
	}
}
