package e2e_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/sim"
	"github.com/meridian-dev/meridian/internal/sim/scenario"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// arrival is one workload of the fidelity scenario: a MultiClusterDeployment
// (parallelism zero) or a MultiClusterJob.
type arrival struct {
	name      string
	job       bool
	replicas  int32
	milliCPU  int64
	preferred string
}

// fidelityWorkload fills Nantes (cluster2) and Lille (cluster3) beyond
// their room, so that substitution and bursting both act, with a job
// placed among the deployments.
var fidelityWorkload = []arrival{
	{name: "shop", replicas: 6, milliCPU: 1000, preferred: "cluster2"},
	{name: "cart", replicas: 6, milliCPU: 1000, preferred: "cluster2"},
	{name: "render", job: true, replicas: 4, milliCPU: 1500, preferred: "cluster4"},
	{name: "api", replicas: 24, milliCPU: 1000, preferred: "cluster3"},
	{name: "etl", job: true, replicas: 6, milliCPU: 1000, preferred: "cluster2"},
	{name: "search", replicas: 5, milliCPU: 1500, preferred: "cluster4"},
}

const (
	fidelityMemory  = "512Mi"
	fidelityArrival = 20 * time.Second
	// fidelityLost is the member cut off once every workload runs.
	fidelityLost = "cluster4"
	// fidelityFailoverGrace is the controllers' --failover-grace, in both
	// runs.
	fidelityFailoverGrace = 10 * time.Second
)

// fidelityCut is when the simulator cuts fidelityLost off: two arrival
// intervals after the last arrival.
var fidelityCut = time.Duration(len(fidelityWorkload)+2) * fidelityArrival

// outage is a member cut off in the simulator from fidelityCut for its
// length, and the run's end.
type outage struct {
	length, end time.Duration
}

// TestSimulatorMatchesTheControllers runs one scenario twice: in the
// simulator, and on the seed001 testbed with the real controllers, and
// asserts that every workload ends with the same replicas (a job's
// parallel pods) in the same member clusters. Once every workload runs, a
// member is cut off the controllers: the replicas it ran are held for the
// failover grace, then placed elsewhere, and the two must agree on where;
// then it returns, and they must agree on what stays. The simulator calls
// the controllers' decisions; this shows that what it models around them
// (the members, their schedulers, their outages, the order of events) does
// not change where the replicas go.
func TestSimulatorMatchesTheControllers(t *testing.T) {
	profile, err := testbed.LoadProfile("seed001")
	if err != nil {
		t.Fatal(err)
	}
	settled := simulate(t, profile, nil)
	t.Logf("simulator, before the outage: %v", settled)
	failedOver := simulate(t, profile, &outage{length: time.Hour, end: fidelityCut + 6*fidelityFailoverGrace})
	t.Logf("simulator, %s cut off: %v", fidelityLost, failedOver)
	want := simulate(t, profile, &outage{length: time.Minute, end: fidelityCut + time.Minute + 5*fidelityArrival})
	t.Logf("simulator, %s back: %v", fidelityLost, want)
	if cmp.Equal(settled, failedOver) {
		t.Fatalf("the outage of %s changes nothing in the simulator; the test would prove nothing", fidelityLost)
	}

	w := startWith(t, profile, func(string) controller.Options {
		return controller.Options{HeartbeatInterval: 2 * time.Second, HeartbeatTimeout: 2 * time.Second, PendingGrace: 5 * time.Second,
			FailoverGrace: fidelityFailoverGrace}
	}, fidelityLost)
	w.namespace(t, "fidelity")
	for _, a := range fidelityWorkload {
		var obj client.Object = a.mcd()
		if a.job {
			obj = a.mcj()
		}
		if err := w.mgmt.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		// The simulator places each arrival (and runs a job to completion)
		// before the next comes; so do the controllers here.
		w.waitFor(t, time.Minute, a.name+" placed and running", func() string {
			got := w.placements(t)[a.name]
			var n int32
			for _, r := range got {
				n += r
			}
			if n < a.replicas {
				return fmt.Sprintf("%s: %v", a.name, got)
			}
			if pending := w.pendingPods(t); len(pending) > 0 {
				return fmt.Sprintf("pods Pending: %v", pending)
			}
			if a.job {
				j := &multiclusterv1alpha1.MultiClusterJob{}
				if err := w.mgmt.Get(t.Context(), client.ObjectKey{Namespace: "fidelity", Name: a.name}, j); err != nil {
					return err.Error()
				}
				if !isTrue(j.Status.Conditions, multiclusterv1alpha1.ConditionComplete) {
					return a.name + " not Complete yet"
				}
			}
			return ""
		})
	}
	w.waitFor(t, time.Minute, "the same placements as the simulator's before the outage", func() string {
		return cmp.Diff(settled, w.placements(t))
	})

	w.proxies[fidelityLost].Break()
	t.Logf("%s cut off", fidelityLost)
	// The test's clients still reach the member, so its objects, which
	// nothing may change meanwhile, count as the simulator counts them.
	w.waitFor(t, 2*time.Minute, "the same placements as the simulator's with "+fidelityLost+" cut off", func() string {
		return cmp.Diff(failedOver, w.placements(t))
	})
	w.proxies[fidelityLost].Restore()
	t.Logf("%s back", fidelityLost)
	w.waitFor(t, 2*time.Minute, "the same placements as the simulator's after "+fidelityLost+" returned", func() string {
		return cmp.Diff(want, w.placements(t))
	})
	t.Logf("controllers: %v", w.placements(t))
}

// simulate runs the fidelity workload in the simulator on the clusters of
// profile, with fidelityLost cut off at fidelityCut when cut is set, and
// returns its final placements by workload name.
func simulate(t *testing.T, profile *testbed.Profile, cut *outage) map[string]map[string]int32 {
	t.Helper()
	var trace strings.Builder
	trace.WriteString(strings.Join([]string{"name", "submitSeconds", "durationSeconds", "kind", "cpuMilli", "memoryMiB", "replicas", "location"}, ",") + "\n")
	type service struct {
		Name      string   `json:"name"`
		CPU       string   `json:"cpu"`
		Memory    string   `json:"memory"`
		Replicas  int32    `json:"replicas"`
		Locations []string `json:"locations"`
		Start     string   `json:"start"`
	}
	var services []service
	mem := resource.MustParse(fidelityMemory)
	for i, a := range fidelityWorkload {
		at := time.Duration(i) * fidelityArrival
		if a.job {
			// The testbed's kwok completes a Job's pods as soon as they run;
			// the shortest duration the simulator has is one second.
			fmt.Fprintf(&trace, "%s,%d,%d,Job,%d,%d,%d,%s\n", a.name, int(at.Seconds()), 1, a.milliCPU, mem.Value()>>20, a.replicas, a.preferred)
			continue
		}
		services = append(services, service{Name: a.name, CPU: fmt.Sprintf("%dm", a.milliCPU), Memory: fidelityMemory,
			Replicas: a.replicas, Locations: []string{a.preferred}, Start: at.String()})
	}
	clusters := make([]map[string]any, 0, len(profile.Clusters))
	for _, c := range profile.Clusters {
		clusters = append(clusters, map[string]any{"name": c.Name, "region": c.Region, "nodes": c.Nodes})
	}
	sc := map[string]any{
		"name":        "fidelity",
		"duration":    (time.Duration(len(fidelityWorkload)+5) * fidelityArrival).String(),
		"clusters":    clusters,
		"latencyMs":   profile.LatencyMs,
		"workload":    map[string]any{"trace": "trace.csv", "services": services},
		"policies":    []map[string]any{{"name": "meridian", "placement": "ClusterAffinity", "substitution": true, "bursting": true}},
		"controllers": map[string]any{"failoverGrace": fidelityFailoverGrace.String()},
	}
	if cut != nil {
		sc["duration"] = cut.end.String()
		sc["outages"] = []map[string]any{{"cluster": fidelityLost, "at": fidelityCut.String(), "for": cut.length.String()}}
	}
	return placementsByName(runScenario(t, sc, trace.String()))
}

// runScenario runs the scenario sc (with its trace, when given) in the
// simulator and returns its one policy's result.
func runScenario(t *testing.T, sc map[string]any, trace string) *sim.PolicyResult {
	t.Helper()
	dir := t.TempDir()
	data, err := yaml.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"fidelity.yaml": data}
	if trace != "" {
		files["trace.csv"] = []byte(trace)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := scenario.Load(filepath.Join(dir, "fidelity.yaml"))
	if err != nil {
		t.Fatalf("fidelity scenario: %v\n%s", err, data)
	}
	r, err := sim.Run(t.Context(), s, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &r.Policies[0]
}

// placementsByName are the placements of r by workload name.
func placementsByName(r *sim.PolicyResult) map[string]map[string]int32 {
	out := map[string]map[string]int32{}
	for key, per := range r.Placements {
		out[key[strings.LastIndex(key, "/")+1:]] = per
	}
	return out
}

// placements reads, per workload of the fidelity namespace, the replicas of
// its member Deployments or the parallel pods of its member Jobs.
func (w *world) placements(t *testing.T) map[string]map[string]int32 {
	t.Helper()
	return placementsIn(t, w.members, "fidelity")
}

// placementsIn reads, per workload of namespace, the replicas of its
// Deployments or the parallel pods of its Jobs in each of clusters.
func placementsIn(t *testing.T, clusters map[string]client.Client, namespace string) map[string]map[string]int32 {
	t.Helper()
	out := map[string]map[string]int32{}
	add := func(name, cluster string, n int32) {
		if out[name] == nil {
			out[name] = map[string]int32{}
		}
		out[name][cluster] = n
	}
	for _, cluster := range slices.Sorted(maps.Keys(clusters)) {
		c := clusters[cluster]
		var ds appsv1.DeploymentList
		if err := c.List(t.Context(), &ds, client.InNamespace(namespace)); err != nil {
			t.Fatal(err)
		}
		for _, d := range ds.Items {
			if d.DeletionTimestamp.IsZero() {
				add(d.Name, cluster, ptr.Deref(d.Spec.Replicas, 1))
			}
		}
		var js batchv1.JobList
		if err := c.List(t.Context(), &js, client.InNamespace(namespace)); err != nil {
			t.Fatal(err)
		}
		for _, j := range js.Items {
			if j.DeletionTimestamp.IsZero() {
				add(j.Name, cluster, ptr.Deref(j.Spec.Parallelism, 1))
			}
		}
	}
	return out
}

func (a arrival) template() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": a.name}},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewMilliQuantity(a.milliCPU, resource.DecimalSI), corev1.ResourceMemory: resource.MustParse(fidelityMemory),
			}}}},
		},
	}
}

func (a arrival) placement() multiclusterv1alpha1.Placement {
	return multiclusterv1alpha1.Placement{
		Locations:    []multiclusterv1alpha1.ClusterName{multiclusterv1alpha1.ClusterName(a.preferred)},
		Substitution: &multiclusterv1alpha1.Substitution{Enabled: true, Policy: multiclusterv1alpha1.SubstituteNearestFirst},
		Bursting:     &multiclusterv1alpha1.Bursting{Enabled: true, Policy: multiclusterv1alpha1.BurstNearestFirst},
	}
}

func (a arrival) mcd() *multiclusterv1alpha1.MultiClusterDeployment {
	d := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: a.name, Namespace: "fidelity"}}
	d.Spec.Replicas = ptr.To(a.replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": a.name}}
	d.Spec.Template = a.template()
	d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
	d.Spec.Placement = a.placement()
	return d
}

func (a arrival) mcj() *multiclusterv1alpha1.MultiClusterJob {
	j := &multiclusterv1alpha1.MultiClusterJob{ObjectMeta: metav1.ObjectMeta{Name: a.name, Namespace: "fidelity"}}
	j.Spec.Parallelism = ptr.To(a.replicas)
	j.Spec.Completions = ptr.To(a.replicas)
	j.Spec.Template = a.template()
	j.Spec.Placement = a.placement()
	return j
}
