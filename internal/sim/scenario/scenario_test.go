package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/sim/workload"
)

func TestBuiltins(t *testing.T) {
	infos, err := Builtins()
	if err != nil {
		t.Fatalf("Builtins() error: %v", err)
	}
	var names []string
	for _, i := range infos {
		names = append(names, i.Name)
		if i.Description == "" {
			t.Errorf("built-in %q has no description", i.Name)
		}
	}
	if diff := cmp.Diff([]string{"heavy-tail", "vi-b", "vi-c", "vi-d"}, names); diff != "" {
		t.Errorf("built-in scenarios (-want +got):\n%s", diff)
	}
}

func TestVIB(t *testing.T) {
	s, err := Load("vi-b")
	if err != nil {
		t.Fatalf("Load(vi-b) error: %v", err)
	}
	tasks, err := s.Tasks(*s.Seed)
	if err != nil {
		t.Fatalf("Tasks() error: %v", err)
	}
	perCluster := map[string]int{}
	for _, task := range tasks {
		perCluster[task.Location]++
	}
	want := map[string]int{"cluster1": 125, "cluster2": 362, "cluster3": 391, "cluster4": 163, "cluster5": 85}
	if diff := cmp.Diff(want, perCluster); diff != "" {
		t.Errorf("tasks per preferred cluster, seed 001 Table III (-want +got):\n%s", diff)
	}
	if got := tasks[len(tasks)-1].Submit; got >= time.Hour {
		t.Errorf("last task submitted at %v, want within 60 minutes", got)
	}
}

func TestLoadFileWithTrace(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "minimal.yaml"))
	if err != nil {
		t.Fatalf("Load error: %v", err)
	}
	tasks, err := s.Tasks(1)
	if err != nil {
		t.Fatalf("Tasks() error: %v", err)
	}
	want := []workload.Task{
		{Name: "web", Submit: 0, Duration: time.Hour, Kind: placement.KindDeployment, MilliCPU: 500, Memory: 256 << 20, Replicas: 2, Location: "a"},
		{Name: "batch", Submit: 30 * time.Second, Duration: 2 * time.Minute, Kind: placement.KindJob, MilliCPU: 1500, Memory: 512 << 20, Replicas: 1, Location: "b"},
	}
	if diff := cmp.Diff(want, tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Controllers{AutoscalerPeriod: 30 * time.Second, ProvisionerPeriod: 30 * time.Second, ReschedulerPeriod: time.Minute, PlacementRetry: 5 * time.Second, PendingGrace: 30 * time.Second, TrafficInterval: 30 * time.Second, FailoverGrace: 2 * time.Minute}, s.Controllers); diff != "" {
		t.Errorf("default controllers (-want +got):\n%s", diff)
	}
}

func TestMalformed(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{
			name: "unknown field",
			old:  "duration: 10m", new: "duraton: 10m",
			want: "bad.yaml:2:1: duraton: unknown field (valid fields: name, description, duration, sampleInterval, seed, clusters, latencyMs, cloud, workload, controllers, policies, outages)",
		},
		{
			name: "bad quantity",
			old:  `cpu: "2"`, new: `cpu: two`,
			want: `bad.yaml:5:29: clusters[0].nodes[0].cpu: "two": not a quantity (want e.g. 2, 500m, 16Gi)`,
		},
		{
			name: "bad duration",
			old:  "duration: 10m", new: "duration: ten minutes",
			want: `bad.yaml:2:11: duration: "ten minutes": not a duration (want e.g. 90s, 5m, 1h30m)`,
		},
		{
			name: "wrong type",
			old:  "count: 2", new: "count: [2]",
			want: "bad.yaml:5:21: clusters[0].nodes[0].count: want a single value, got a list",
		},
		{
			name: "value out of range",
			old:  "count: 2", new: "count: 0",
			want: "bad.yaml:5:21: clusters[0].nodes[0].count: 0: must be at least 1",
		},
		{
			name: "unknown cluster",
			old:  "a: {b: 5}", new: "a: {c: 5}",
			want: "bad.yaml:9:10: latencyMs.a.c: \"c\" is not a cluster of the scenario (clusters: a, b)\n" +
				"bad.yaml:9:3: latencyMs: no latency between \"a\" and \"b\": give every pair, in either direction",
		},
		{
			name: "unknown placement",
			old:  "placement: ClusterAffinity", new: "placement: Anywhere",
			want: "bad.yaml:14:16: policies[0].placement: \"Anywhere\": must be one of Propagate, ClusterAffinity, WorstFit, BestFit, TrafficAware, Carbon, Learned",
		},
		{
			name: "carbon without intensities",
			old:  "placement: ClusterAffinity", new: "placement: Carbon",
			want: "bad.yaml:14:16: policies[0].placement: \"Carbon\": scenarios carry no grid zones or carbon intensities yet, so Carbon would rank every cluster alike; " +
				"use one of the other placements here, and `meridian sim carbon` to compare carbon-aware policies on recorded intensities",
		},
		{
			name: "provisioning without a cloud",
			old:  "substitution: true", new: "provisioning: Predictive",
			want: "bad.yaml:15:19: policies[0].provisioning: \"Predictive\" needs a cloud in the scenario",
		},
		{
			name: "outage of an unknown cluster, for no time",
			old:  "policies:", new: "outages: [{cluster: c, at: 1m, for: 0s}]\npolicies:",
			want: "bad.yaml:12:21: outages[0].cluster: \"c\" is not a cluster of the scenario (clusters and the cloud: a, b)\n" +
				"bad.yaml:12:37: outages[0].for: 0s: must be positive",
		},
		{
			name: "overlapping outages",
			old:  "policies:", new: "outages: [{cluster: a, at: 1m, for: 5m}, {cluster: a, at: 3m, for: 1m}]\npolicies:",
			want: "bad.yaml:12:42: outages[1]: overlaps outages[0] of \"a\": give one outage per stretch of time",
		},
		{
			name: "a flavor's price without its currency, as written before the money shape",
			old:  "workload:", new: "cloud: {name: c, flavors: [{name: f, cpu: \"4\", memory: 8Gi, pricePerHour: 0.16}]}\nworkload:",
			want: `bad.yaml:10:75: cloud.flavors[0].pricePerHour: want a mapping, got "0.16"`,
		},
		{
			name: "flavors priced in two currencies",
			old:  "a: {b: 5}\nworkload:", new: "a: {b: 5, c: 5}\n  b: {c: 5}\ncloud: {name: c, flavors: [{name: f, cpu: \"4\", memory: 8Gi, pricePerHour: {amount: \"0.16\", currency: USD}}, " +
				"{name: g, cpu: \"8\", memory: 16Gi, pricePerHour: {amount: \"0.3\", currency: EUR}}]}\nworkload:",
			want: `bad.yaml:11:183: cloud.flavors[1].pricePerHour.currency: "EUR": must be USD, the currency of cloud.flavors[0].pricePerHour.currency: flavors are compared by price`,
		},
		{
			name: "a service that stops before it starts",
			old:  "trace: minimal.csv", new: "services: [{name: web, cpu: 500m, memory: 1Gi, replicas: 2, start: 2m, stop: 1m}]",
			want: "bad.yaml:11:80: workload.services[0].stop: 1m0s: must be after the service's start (2m0s), or left out to run to the end",
		},
		{
			name: "not YAML",
			old:  "name: minimal", new: "name: [minimal",
			want: "bad.yaml:1:1: (document): not valid YAML: line 1: did not find expected ',' or ']'",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := strings.Replace(string(base), tc.old, tc.new, 1)
			_, err := Parse([]byte(data), "bad.yaml", os.DirFS("testdata"), ".")
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMalformedTrace(t *testing.T) {
	dir := t.TempDir()
	scenario, err := os.ReadFile(filepath.Join("testdata", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), scenario, 0o644); err != nil {
		t.Fatal(err)
	}
	trace := "name,submitSeconds,durationSeconds,kind,cpuMilli,memoryMiB,replicas,location\nweb,0,60,,500,256,1,a\nbatch,abc,60,,500,256,1,a\n"
	if err := os.WriteFile(filepath.Join(dir, "minimal.csv"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatalf("Load error: %v", err)
	}
	_, err = s.Tasks(1)
	got := ""
	if err != nil {
		got = err.Error()
	}
	if diff := cmp.Diff(`minimal.csv:3: column submitSeconds: "abc" is not a number`, got); diff != "" {
		t.Errorf("Tasks error (-want +got):\n%s", diff)
	}
}
