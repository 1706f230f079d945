package e2e_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	cloudtestbed "github.com/meridian-dev/meridian/internal/cloud/testbed"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/sim"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// cloudFidelityWorkload runs on the three members of seed001-vid (home
// 4 CPU, its two neighbours 2 CPU each): web fills them (8 replicas at
// home, 4 in each neighbour), overflow then finds room only in the cloud.
// overflow's three replicas make the CloudProvisioner ask for a cloud
// cluster and fill most of its first node; batch's second replica does
// not fit beside them, so a second node is added. When overflow is
// deleted each node holds one replica of batch, a quarter of its CPU: the
// provisioner drains one into the other and removes it.
var cloudFidelityWorkload = []arrival{
	{name: "web", replicas: 16, milliCPU: 500, preferred: "cluster1"},
	{name: "overflow", replicas: 3, milliCPU: 500, preferred: "cluster1"},
	{name: "batch", replicas: 2, milliCPU: 500, preferred: "cluster1"},
}

const (
	// cloudFidelityDeleted is the arrival deleted once all run.
	cloudFidelityDeleted = "overflow"
	// cloudArrival spaces the simulator's arrivals so that each is placed
	// and running before the next, as the test waits on the testbed.
	cloudArrival = 2 * time.Minute
	// cloudFlavorCPU is the cloud flavor's CPU in cores.
	cloudFlavorCPU = 2
)

// TestSimulatorMatchesTheControllersWithTheCloud runs
// cloudFidelityWorkload in the simulator and on the seed001-vid testbed
// with the real controllers and a CloudProvisioner (Testbed backend):
// both burst to a cloud cluster they provision, add a node to it, and,
// once a workload is deleted, drain a node half empty and remove it. At
// the peak and at the end both must hold the same replicas per workload
// per cluster, the cloud's included, on the same number of cloud nodes.
func TestSimulatorMatchesTheControllersWithTheCloud(t *testing.T) {
	profile, err := testbed.LoadProfile("seed001-vid")
	if err != nil {
		t.Fatal(err)
	}
	deleteAt := time.Duration(len(cloudFidelityWorkload)) * cloudArrival
	peak, peakNodes := simulateCloud(t, profile, deleteAt-time.Second)
	t.Logf("simulator, at the peak: %v on %d cloud nodes", peak, peakNodes)
	end, endNodes := simulateCloud(t, profile, deleteAt+3*cloudArrival)
	t.Logf("simulator, after %s was deleted: %v on %d cloud nodes", cloudFidelityDeleted, end, endNodes)
	if peakNodes < 2 || endNodes >= peakNodes {
		t.Fatalf("the simulator's cloud went from %d nodes to %d: no node was drained and removed, the test would prove nothing", peakNodes, endNodes)
	}

	w := startWith(t, profile, func(dir string) controller.Options {
		return controller.Options{
			Namespace:         "meridian-system",
			HeartbeatInterval: 2 * time.Second, HeartbeatTimeout: 2 * time.Second, PendingGrace: 5 * time.Second,
			ProvisionerPeriod: 2 * time.Second,
			CloudBackends:     map[multiclusterv1alpha1.ProvisionerBackend]cloud.Backend{multiclusterv1alpha1.BackendTestbed: cloudtestbed.New(dir)},
		}
	})
	ctx := t.Context()
	w.namespace(t, "fidelity")
	if err := w.mgmt.Create(ctx, cloudFidelityProvisioner()); err != nil {
		t.Fatal(err)
	}
	// clients are the members', and the cloud cluster's once it is a
	// Ready member.
	clients := func() map[string]client.Client {
		out := maps.Clone(w.members)
		cl := &multiclusterv1alpha1.Cluster{}
		if err := w.mgmt.Get(ctx, client.ObjectKey{Name: "cloud"}, cl); err != nil || !isTrue(cl.Status.Conditions, multiclusterv1alpha1.ClusterReady) {
			return out
		}
		if c, err := testbed.OpenCluster(w.dir, "cloud"); err == nil {
			if out["cloud"], err = c.Client(); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	// settled says what keeps the clusters from holding want on
	// wantNodes cloud nodes with every pod running; "" once they do.
	settled := func(want map[string]map[string]int32, wantNodes int) string {
		cs := clients()
		if diff := cmp.Diff(want, placementsIn(t, cs, "fidelity")); diff != "" {
			return diff
		}
		if n := cloudNodes(t, cs["cloud"]); n != wantNodes {
			return fmt.Sprintf("%d cloud nodes, want %d", n, wantNodes)
		}
		return notRunning(t, cs)
	}
	for _, a := range cloudFidelityWorkload {
		d := a.mcd()
		d.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("128Mi")
		if err := w.mgmt.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		w.waitFor(t, 3*time.Minute, a.name+" placed and running", func() string {
			var n int32
			for _, r := range placementsIn(t, clients(), "fidelity")[a.name] {
				n += r
			}
			if n < a.replicas {
				return fmt.Sprintf("%d of %d replicas placed", n, a.replicas)
			}
			return notRunning(t, clients())
		})
	}
	w.waitFor(t, time.Minute, "the simulator's placements and cloud nodes at the peak", func() string { return settled(peak, peakNodes) })
	// Each cloud node holds a replica of batch: the node removed next
	// must be drained first.
	if nodes := podNodes(t, clients()["cloud"], "batch"); len(nodes) != 2 {
		t.Fatalf("batch runs on cloud nodes %v; want one replica on each of two nodes, so that removing one needs a drain", nodes)
	}

	if err := w.mgmt.Delete(ctx, &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "fidelity", Name: cloudFidelityDeleted}}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s deleted", cloudFidelityDeleted)
	w.waitFor(t, 3*time.Minute, "the simulator's placements and cloud nodes once a node is drained", func() string { return settled(end, endNodes) })
	t.Logf("controllers: %v on %d cloud nodes", placementsIn(t, clients(), "fidelity"), cloudNodes(t, clients()["cloud"]))
}

// simulateCloud runs cloudFidelityWorkload in the simulator until the
// given time, the cloud as the testbed's, and returns the placements by
// workload name and the cloud nodes paid for at the end.
func simulateCloud(t *testing.T, profile *testbed.Profile, until time.Duration) (map[string]map[string]int32, int) {
	t.Helper()
	var services []map[string]any
	for i, a := range cloudFidelityWorkload {
		s := map[string]any{"name": a.name, "cpu": fmt.Sprintf("%dm", a.milliCPU), "memory": "128Mi", "replicas": a.replicas,
			"locations": []string{a.preferred}, "start": (time.Duration(i) * cloudArrival).String()}
		if a.name == cloudFidelityDeleted {
			s["stop"] = (time.Duration(len(cloudFidelityWorkload)) * cloudArrival).String()
		}
		services = append(services, s)
	}
	clusters := make([]map[string]any, 0, len(profile.Clusters))
	for _, c := range profile.Clusters {
		clusters = append(clusters, map[string]any{"name": c.Name, "region": c.Region, "nodes": c.Nodes})
	}
	p := cloudFidelityProvisioner().Spec
	// The simulator needs the cloud's distance to every member; the
	// controllers know none, so the cloud comes last, as here, where it is
	// farther than any member (and, the members being full, the only one
	// with room anyway).
	latency := maps.Clone(profile.LatencyMs)
	latency[string(p.CloudClusterName)] = map[string]float64{}
	for _, c := range profile.Clusters {
		latency[string(p.CloudClusterName)][c.Name] = 100
	}
	sc := map[string]any{
		"name":           "fidelity-cloud",
		"duration":       until.String(),
		"sampleInterval": "1s",
		"clusters":       clusters,
		"latencyMs":      latency,
		"cloud": map[string]any{
			"name": p.CloudClusterName, "region": p.Region, "clusterDelay": "30s", "nodeDelay": "10s",
			"flavors":  []map[string]any{{"name": p.Flavors[0].Name, "cpu": p.Flavors[0].CPU.String(), "memory": p.Flavors[0].Memory.String()}},
			"minNodes": p.MinNodes, "maxNodes": p.MaxNodes,
			"scaleDownDelay": p.ScaleDownDelay.Duration.String(), "deprovisionDelay": p.DeprovisionDelay.Duration.String(),
		},
		"workload":    map[string]any{"services": services},
		"policies":    []map[string]any{{"name": "meridian", "placement": "ClusterAffinity", "substitution": true, "bursting": true, "provisioning": string(p.Mode)}},
		"controllers": map[string]any{"provisionerPeriod": "2s", "pendingGrace": "5s"},
	}
	r := runScenario(t, sc, "")
	for _, e := range r.Events {
		if e.Kind == sim.EventNodesRemoved {
			t.Logf("simulator at %.0fs: %s", e.AtSeconds, e.Message)
		}
	}
	paid := r.Series.CloudPaidCores
	if len(paid) == 0 {
		t.Fatal("the simulator sampled no cloud cores")
	}
	return placementsByName(r), int(paid[len(paid)-1]) / cloudFlavorCPU
}

// cloudFidelityProvisioner is the CloudProvisioner of both runs: one flavor
// of 2 CPU, from one to four nodes, scaled down after ten seconds under
// half used.
func cloudFidelityProvisioner() *multiclusterv1alpha1.CloudProvisioner {
	cp := &multiclusterv1alpha1.CloudProvisioner{ObjectMeta: metav1.ObjectMeta{Namespace: "meridian-system", Name: "burst"}}
	cp.Spec = multiclusterv1alpha1.CloudProvisionerSpec{
		CloudClusterName: "cloud", Provider: "Testbed", Backend: multiclusterv1alpha1.BackendTestbed, Region: "nancy",
		Mode: multiclusterv1alpha1.ModeReactive,
		Flavors: []multiclusterv1alpha1.CloudFlavor{{Name: "medium", InstanceType: "m1.medium",
			CPU: *resource.NewQuantity(cloudFlavorCPU, resource.DecimalSI), Memory: resource.MustParse("8Gi")}},
		MinNodes: 1, MaxNodes: 4,
		ScaleDownDelay:   &metav1.Duration{Duration: 10 * time.Second},
		DeprovisionDelay: &metav1.Duration{Duration: 15 * time.Second},
	}
	return cp
}

// podNodes are the nodes that run the pods of app in c.
func podNodes(t *testing.T, c client.Client, app string) []string {
	t.Helper()
	var pods corev1.PodList
	if err := c.List(t.Context(), &pods, client.InNamespace("fidelity"), client.MatchingLabels{"app": app}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pods.Items {
		if !slices.Contains(out, p.Spec.NodeName) {
			out = append(out, p.Spec.NodeName)
		}
	}
	return out
}

// cloudNodes counts the nodes of the cloud cluster; none when it is nil.
func cloudNodes(t *testing.T, c client.Client) int {
	t.Helper()
	if c == nil {
		return 0
	}
	var nodes corev1.NodeList
	if err := c.List(t.Context(), &nodes); err != nil {
		t.Fatal(err)
	}
	return len(nodes.Items)
}

// notRunning names a pod of the fidelity namespace that is not Running in
// one of clusters; "" when all are.
func notRunning(t *testing.T, clusters map[string]client.Client) string {
	t.Helper()
	for name, c := range clusters {
		var pods corev1.PodList
		if err := c.List(t.Context(), &pods, client.InNamespace("fidelity")); err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodRunning || !p.DeletionTimestamp.IsZero() {
				return fmt.Sprintf("%s/%s %s", name, p.Name, p.Status.Phase)
			}
		}
	}
	return ""
}
