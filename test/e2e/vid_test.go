package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	cloudtestbed "github.com/meridian-dev/meridian/internal/cloud/testbed"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// clusters of the timeline, in the order bursting should use them.
var vidClusters = []string{"cluster1", "cluster2", "cluster4", "cloud"}

// sample is what the timeline records at one instant.
type sample struct {
	load   float64
	wanted int32
	// placed and ready are, per cluster, the member Deployment's replicas
	// and ready replicas.
	placed map[string]int32
	ready  map[string]int32
	phase  multiclusterv1alpha1.CloudProvisionerPhase
}

func (s sample) readyTotal() int32 {
	var n int32
	for _, r := range s.ready {
		n += r
	}
	return n
}

func (s sample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "load %4.1f CPU  wanted %2d  ready %2d |", s.load, s.wanted, s.readyTotal())
	for _, c := range vidClusters {
		fmt.Fprintf(&b, " %s %2d", c, s.ready[c])
	}
	fmt.Fprintf(&b, " | cloud %s", orDash(string(s.phase)))
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// vid drives and watches the experiment.
type vid struct {
	w     *world
	begin time.Time

	load *testbed.Load

	mu    sync.Mutex
	cores float64 // CPU cores the application's users ask for
	cloud client.Client
	rows  []string
	last  string
	first map[string]time.Duration // when each cluster first ran a replica
}

func (v *vid) setLoad(t *testing.T, cores float64) {
	v.mu.Lock()
	v.cores = cores
	v.mu.Unlock()
	v.load.Set(cores)
	t.Logf("%6.1fs  load set to %.1f CPU", time.Since(v.begin).Seconds(), cores)
}

// clients are the member clients, the cloud cluster's once it exists.
func (v *vid) clients() map[string]client.Client {
	out := maps.Clone(v.w.members)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cloud == nil {
		if c, err := testbed.OpenCluster(v.w.dir, "cloud"); err == nil {
			v.cloud, _ = c.Client()
		}
	}
	if v.cloud != nil {
		out["cloud"] = v.cloud
	}
	return out
}

// forgetCloud drops the cloud client once the cluster is gone.
func (v *vid) forgetCloud() {
	v.mu.Lock()
	v.cloud = nil
	v.mu.Unlock()
}

// drive spreads the load over the application's pods every two seconds,
// as `meridian testbed load` does.
func (v *vid) drive(ctx context.Context) {
	for ctx.Err() == nil {
		_, _ = v.load.Apply(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
}

// observe reads one sample and adds it to the timeline when it changed.
func (v *vid) observe(t *testing.T) sample {
	ctx := t.Context()
	s := sample{placed: map[string]int32{}, ready: map[string]int32{}}
	v.mu.Lock()
	s.load = v.cores
	v.mu.Unlock()
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{}
	if err := v.w.mgmt.Get(ctx, client.ObjectKey{Namespace: "vid", Name: "web"}, mcd); err == nil {
		s.wanted = ptr.Deref(mcd.Spec.Replicas, 0)
	}
	cp := &multiclusterv1alpha1.CloudProvisioner{}
	if err := v.w.mgmt.Get(ctx, client.ObjectKey{Namespace: "meridian-system", Name: "burst"}, cp); err == nil {
		s.phase = cp.Status.Phase
	}
	for name, c := range v.clients() {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "vid", Name: "web"}, d); err == nil {
			s.placed[name], s.ready[name] = ptr.Deref(d.Spec.Replicas, 0), d.Status.ReadyReplicas
		}
	}
	line := s.String()
	if line != v.last {
		at := time.Since(v.begin)
		row := fmt.Sprintf("%6.1fs  %s", at.Seconds(), line)
		v.rows, v.last = append(v.rows, row), line
		t.Log(row)
		for name, r := range s.ready {
			if _, seen := v.first[name]; !seen && r > 0 {
				v.first[name] = at
			}
		}
	}
	return s
}

// until samples every half second until done holds for a sample, and fails
// after timeout.
func (v *vid) until(t *testing.T, timeout time.Duration, what string, done func(sample) bool) {
	t.Helper()
	var last sample
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if last = v.observe(t); done(last) {
			t.Logf("%6.1fs  %s", time.Since(v.begin).Seconds(), what)
			return
		}
	}
	t.Fatalf("%s: not reached within %s; last: %s", what, timeout, last)
}

// TestVIDBurstToTheCloudAndPullBack reproduces seed 001's VI-D in compressed
// time on real clusters: the users' load rises and the multi-cluster HPA
// scales the application up; it bursts from its home cluster to the
// nearest neighbour, then the next, then to a cloud cluster the
// CloudProvisioner provisions for it. The load falls, the HPA scales down
// (the cloud first), the home cluster gets room back and the re-scheduler
// brings the replicas home, never letting the ready replicas drop below
// the wanted ones; the empty cloud cluster is removed. The test prints the
// timeline as it goes.
func TestVIDBurstToTheCloudAndPullBack(t *testing.T) {
	profile, err := testbed.LoadProfile("seed001-vid")
	if err != nil {
		t.Fatal(err)
	}
	w := startWith(t, profile, func(dir string) controller.Options {
		return controller.Options{
			Namespace:         "meridian-system",
			HeartbeatInterval: 2 * time.Second, HeartbeatTimeout: 2 * time.Second, PendingGrace: 5 * time.Second,
			AutoscaleInterval: 3 * time.Second, ProvisionerPeriod: 2 * time.Second,
			CloudBackends: map[multiclusterv1alpha1.ProvisionerBackend]cloud.Backend{multiclusterv1alpha1.BackendTestbed: cloudtestbed.New(dir)},
		}
	})
	ctx := t.Context()
	w.namespace(t, "vid")
	v := &vid{w: w, begin: time.Now(), load: &testbed.Load{Dir: w.dir, Namespace: "vid", Name: "web"}, first: map[string]time.Duration{}}
	v.setLoad(t, 0.5)
	go v.drive(ctx)

	// A batch workload holds half of the home cluster; the application
	// starts at home with two replicas.
	for _, obj := range []client.Object{
		vidDeployment("batch", 2, "1", multiclusterv1alpha1.Placement{Locations: []multiclusterv1alpha1.ClusterName{"cluster1"}}),
		vidDeployment("web", 2, "500m", multiclusterv1alpha1.Placement{
			Locations: []multiclusterv1alpha1.ClusterName{"cluster1"},
			Bursting:  &multiclusterv1alpha1.Bursting{Enabled: true, Policy: multiclusterv1alpha1.BurstNearestFirst},
		}),
		vidAutoscaler(),
		vidProvisioner(),
		&multiclusterv1alpha1.MultiClusterRescheduler{ObjectMeta: metav1.ObjectMeta{Name: "home"},
			Spec: multiclusterv1alpha1.MultiClusterReschedulerSpec{Interval: &metav1.Duration{Duration: 5 * time.Second}}},
	} {
		if err := w.mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	v.until(t, 2*time.Minute, "the application runs at home", func(s sample) bool {
		return s.wanted == 2 && s.ready["cluster1"] == 2
	})

	// Load rises: 3.4 CPU at 500m requests and a 50% target is 13.6
	// replicas. The HPA comes from below as replicas turn ready, and
	// within its 10% tolerance it may stop at 13 (13.6 / 13 = 1.05) or
	// reach 14 in one step: both are right, and which one depends on how
	// fast the replicas turn ready. Home has room for 4 (the batch holds
	// the rest), each neighbour for 4, so the cloud holds 1 or 2.
	v.setLoad(t, 3.4)
	var outOfOrder []string
	v.until(t, 5*time.Minute, "scaled up, burst to the neighbours and the cloud", func(s sample) bool {
		// Nearest first: Grenoble only once Nantes is full, the cloud
		// only once both are (4 replicas each).
		if (s.placed["cluster4"] > 0 && s.placed["cluster2"] < 4) || (s.placed["cloud"] > 0 && (s.placed["cluster2"] < 4 || s.placed["cluster4"] < 4)) {
			outOfOrder = append(outOfOrder, fmt.Sprintf("placed %v", s.placed))
		}
		return s.wanted >= 13 && s.readyTotal() == s.wanted && s.ready["cloud"] > 0
	})
	if len(outOfOrder) > 0 {
		t.Errorf("the overflow did not go nearest first:\n%s", strings.Join(outOfOrder, "\n"))
	}
	peak := v.observe(t)
	if peak.ready["cluster1"] != 4 || peak.ready["cluster2"] != 4 || peak.ready["cluster4"] != 4 || peak.ready["cloud"] != peak.wanted-12 {
		t.Errorf("at the peak: %s; want home, Nantes and Grenoble full (4 each) and the rest (%d) in the cloud", peak, peak.wanted-12)
	}

	// Load falls to 1.4 CPU: 6 replicas, the cloud's go first.
	v.setLoad(t, 1.4)
	v.until(t, 3*time.Minute, "scaled down, the cloud released first", func(s sample) bool {
		return s.wanted == 6 && s.readyTotal() == 6 && s.ready["cloud"] == 0
	})

	// The batch ends: home has room again and the replicas come home.
	if err := w.mgmt.Delete(ctx, &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "vid", Name: "batch"}}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%6.1fs  batch workload deleted: home has room again", time.Since(v.begin).Seconds())
	var dips []string
	v.until(t, 3*time.Minute, "every replica home", func(s sample) bool {
		if s.readyTotal() < s.wanted {
			dips = append(dips, s.String())
		}
		return s.wanted == 6 && s.ready["cluster1"] == 6 && s.readyTotal() == 6
	})
	if len(dips) > 0 {
		t.Errorf("during the pull-back the ready replicas fell below the wanted ones:\n%s", strings.Join(dips, "\n"))
	}

	v.until(t, 2*time.Minute, "the empty cloud cluster removed", func(s sample) bool {
		if s.phase != multiclusterv1alpha1.PhaseIdle {
			return false
		}
		err := w.mgmt.Get(ctx, client.ObjectKey{Name: "cloud"}, &multiclusterv1alpha1.Cluster{})
		return apierrors.IsNotFound(err)
	})
	v.forgetCloud()
	if _, err := testbed.OpenCluster(w.dir, "cloud"); err == nil {
		t.Errorf("the cloud cluster still runs on the testbed after it was removed")
	}

	var moved int64
	mcr := &multiclusterv1alpha1.MultiClusterRescheduler{}
	if err := w.mgmt.Get(ctx, client.ObjectKey{Name: "home"}, mcr); err == nil {
		moved = mcr.Status.ReplicasMovedBack
	}
	t.Logf("timeline (%d replicas moved back, first replicas: %v):\n%s", moved, formatFirst(v.first), strings.Join(v.rows, "\n"))
}

func formatFirst(first map[string]time.Duration) string {
	var parts []string
	for _, name := range slices.SortedFunc(maps.Keys(first), func(a, b string) int { return int(first[a] - first[b]) }) {
		parts = append(parts, fmt.Sprintf("%s %.1fs", name, first[name].Seconds()))
	}
	return strings.Join(parts, ", ")
}

func vidDeployment(name string, replicas int32, cpu string, placement multiclusterv1alpha1.Placement) *multiclusterv1alpha1.MultiClusterDeployment {
	labels := map[string]string{"app": name}
	d := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "vid", Name: name}}
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Labels = labels
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: name, Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("128Mi")},
	}}}
	d.Spec.Placement = placement
	return d
}

func vidAutoscaler() *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler {
	hpa := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "vid", Name: "web"}}
	hpa.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: multiclusterv1alpha1.GroupVersion.String(), Kind: "MultiClusterDeployment", Name: "web"}
	hpa.Spec.MinReplicas = ptr.To(int32(2))
	hpa.Spec.MaxReplicas = 20
	hpa.Spec.ScaleDownCooldown = &metav1.Duration{Duration: 20 * time.Second}
	hpa.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(int32(50))},
	}}}
	return hpa
}

func vidProvisioner() *multiclusterv1alpha1.CloudProvisioner {
	cp := &multiclusterv1alpha1.CloudProvisioner{ObjectMeta: metav1.ObjectMeta{Namespace: "meridian-system", Name: "burst"}}
	cp.Spec = multiclusterv1alpha1.CloudProvisionerSpec{
		CloudClusterName: "cloud", Provider: "Testbed", Backend: multiclusterv1alpha1.BackendTestbed, Region: "nancy",
		Mode:     multiclusterv1alpha1.ModeReactive,
		Flavors:  []multiclusterv1alpha1.CloudFlavor{{Name: "medium", InstanceType: "m1.medium", CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi")}},
		MinNodes: 1, MaxNodes: 4,
		ScaleDownDelay:   &metav1.Duration{Duration: 10 * time.Second},
		DeprovisionDelay: &metav1.Duration{Duration: 15 * time.Second},
	}
	return cp
}
