package testbed

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
)

// clusterSummary is what a test compares of a profile's cluster.
type clusterSummary struct {
	Name, Region, Zone string
	Nodes              int
	CPU, Memory        string
}

func summarize(p *Profile) []clusterSummary {
	var out []clusterSummary
	for i := range p.Clusters {
		c := &p.Clusters[i]
		out = append(out, clusterSummary{
			Name: c.Name, Region: c.Region, Zone: c.Zone, Nodes: c.NodeCount(),
			CPU: c.Nodes[0].CPU.String(), Memory: c.Nodes[0].Memory.String(),
		})
	}
	return out
}

func TestSeed001Profile(t *testing.T) {
	p, err := LoadProfile("seed001")
	if err != nil {
		t.Fatal(err)
	}
	// Seed 001, VI-A: five workers per cluster; clusters 1 and 5 of
	// 4 CPU / 16 GB nodes, 2 to 4 of 2 CPU / 4 GB.
	want := []clusterSummary{
		{Name: "cluster1", Region: "rennes", Zone: "rennes-1", Nodes: 5, CPU: "4", Memory: "16Gi"},
		{Name: "cluster2", Region: "nantes", Zone: "nantes-1", Nodes: 5, CPU: "2", Memory: "4Gi"},
		{Name: "cluster3", Region: "lille", Zone: "lille-1", Nodes: 5, CPU: "2", Memory: "4Gi"},
		{Name: "cluster4", Region: "grenoble", Zone: "grenoble-1", Nodes: 5, CPU: "2", Memory: "4Gi"},
		{Name: "cluster5", Region: "luxembourg", Zone: "luxembourg-1", Nodes: 5, CPU: "4", Memory: "16Gi"},
	}
	if diff := cmp.Diff(want, summarize(p)); diff != "" {
		t.Errorf("seed001 clusters (-want +got):\n%s", diff)
	}

	// Table II, both directions.
	for _, tc := range []struct {
		a, b string
		want time.Duration
	}{
		{"cluster1", "cluster2", 2160 * time.Microsecond},
		{"cluster2", "cluster1", 2160 * time.Microsecond},
		{"cluster3", "cluster5", 11880 * time.Microsecond},
		{"cluster5", "cluster1", 27410 * time.Microsecond},
		{"cluster4", "cluster2", 16380 * time.Microsecond},
	} {
		got, ok := p.Latency(tc.a, tc.b)
		if !ok || got != tc.want {
			t.Errorf("Latency(%s, %s) = %v, %v; want %v, true", tc.a, tc.b, got, ok, tc.want)
		}
	}
}

func TestProfilesAreValid(t *testing.T) {
	all, err := Profiles()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
		if p.Description == "" {
			t.Errorf("profile %s has no description", p.Name)
		}
	}
	if diff := cmp.Diff([]string{"seed001", "seed001-vid", "sharing"}, names); diff != "" {
		t.Errorf("built-in profiles (-want +got):\n%s", diff)
	}
}

// TestExampleProfilesAreValid loads every testbed profile in examples/.
func TestExampleProfilesAreValid(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "testbed", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example profiles: %v", err)
	}
	for _, f := range files {
		p, err := LoadProfile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if p.Description == "" {
			t.Errorf("%s has no description", f)
		}
	}
}

func TestUniform(t *testing.T) {
	tests := []struct {
		name string
		opts UniformOptions
		want []clusterSummary
		// latency between the first and the last member.
		wantLatency time.Duration
	}{
		{
			name: "defaults",
			opts: UniformOptions{Clusters: 3},
			want: []clusterSummary{
				{Name: "member-1", Region: "local", Zone: "local-1", Nodes: 3, CPU: "4", Memory: "16Gi"},
				{Name: "member-2", Region: "local", Zone: "local-2", Nodes: 3, CPU: "4", Memory: "16Gi"},
				{Name: "member-3", Region: "local", Zone: "local-3", Nodes: 3, CPU: "4", Memory: "16Gi"},
			},
			wantLatency: 4 * time.Millisecond,
		},
		{
			name: "small nodes",
			opts: UniformOptions{Clusters: 2, Nodes: 2, CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi")},
			want: []clusterSummary{
				{Name: "member-1", Region: "local", Zone: "local-1", Nodes: 2, CPU: "2", Memory: "4Gi"},
				{Name: "member-2", Region: "local", Zone: "local-2", Nodes: 2, CPU: "2", Memory: "4Gi"},
			},
			wantLatency: 2 * time.Millisecond,
		},
		{
			name: "management only",
			opts: UniformOptions{Clusters: 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Uniform(tc.opts)
			if err := p.Validate(); err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if diff := cmp.Diff(tc.want, summarize(p)); diff != "" {
				t.Errorf("clusters (-want +got):\n%s", diff)
			}
			if n := len(p.Clusters); n > 1 {
				got, _ := p.Latency(p.Clusters[0].Name, p.Clusters[n-1].Name)
				if got != tc.wantLatency {
					t.Errorf("latency first-last = %v, want %v", got, tc.wantLatency)
				}
			}
		})
	}
}

func TestParseProfileErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{
			name: "unknown field",
			yaml: "name: x\nclusters: []\nlatency: {}\n",
			want: []string{`unknown field "latency"`},
		},
		{
			name: "bad clusters",
			yaml: `name: x
clusters:
  - name: Cluster_1
    region: rennes
    nodes: [{count: 1, cpu: "2", memory: 4Gi}]
  - name: management
    nodes: [{count: 0, cpu: "0", memory: 4Gi}]
  - name: a
    zone: Zone A
    nodes: []
  - name: a
    nodes: [{count: 1, cpu: "1", memory: 1Gi, pods: -1}]
`,
			want: []string{
				`clusters[0].name: "Cluster_1" is not a valid cluster name`,
				`clusters[1].name: "management" is the management cluster's name`,
				`clusters[1].nodes[0].count: 0 must be at least 1`,
				`clusters[1].nodes[0].cpu: "0" must be positive`,
				`clusters[2].zone: "Zone A" must be lower-case letters, digits and '-'`,
				`clusters[2].nodes: a member needs at least one node pool`,
				`clusters[3].name: "a" is used twice`,
				`clusters[3].nodes[0].pods: -1 must not be negative`,
			},
		},
		{
			name: "bad latencies",
			yaml: `name: x
clusters:
  - {name: a, nodes: [{count: 1, cpu: "1", memory: 1Gi}]}
  - {name: b, nodes: [{count: 1, cpu: "1", memory: 1Gi}]}
  - {name: c, nodes: [{count: 1, cpu: "1", memory: 1Gi}]}
latencyMs:
  a: {b: 2, d: 3, a: 1}
  b: {c: -1}
`,
			want: []string{
				`latencyMs.a.a: a cluster has no latency to itself`,
				`latencyMs.a.d: "d" is not a cluster of the profile`,
				`latencyMs.b.c: -1 must be a positive number of milliseconds`,
				`latencyMs: no latency between "a" and "c": give every pair, in either direction`,
			},
		},
		{
			name: "bad controller-manager limits",
			yaml: `name: x
clusters:
  - {name: a, nodes: [{count: 1, cpu: "1", memory: 1Gi}]}
controllerManager: {kubeAPIQPS: 0, kubeAPIBurst: -1}
`,
			want: []string{
				`controllerManager.kubeAPIQPS: 0 must be at least 1`,
				`controllerManager.kubeAPIBurst: -1 must be at least kubeAPIQPS (0)`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseProfile([]byte(tc.yaml))
			if err == nil {
				t.Fatal("ParseProfile() succeeded, want an error")
			}
			var got []string
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					got = append(got, w)
				}
			}
			if len(got) > 0 {
				t.Errorf("error lacks %q; error:\n%v", got, err)
			}
		})
	}
}

func TestLoadProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "two.yaml")
	if err := os.WriteFile(file, []byte(`name: two
description: two clusters
clusters:
  - {name: a, region: r, nodes: [{count: 2, cpu: "1", memory: 2Gi}]}
  - {name: b, region: r, nodes: [{count: 1, cpu: "8", memory: 32Gi, pods: 250}]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		arg       string
		wantName  string
		wantErr   error
		wantInErr string
	}{
		{name: "built-in", arg: "seed001", wantName: "seed001"},
		{name: "file", arg: file, wantName: "two"},
		{name: "unknown", arg: "seed002", wantErr: ErrUnknownProfile, wantInErr: "valid profiles are uniform, seed001"},
		{name: "missing file", arg: "./nope.yaml", wantInErr: "failed to read profile file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := LoadProfile(tc.arg)
			if tc.wantInErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantInErr) {
					t.Fatalf("LoadProfile(%q) error = %v, want one containing %q", tc.arg, err, tc.wantInErr)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("LoadProfile(%q) error = %v, want %v", tc.arg, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != tc.wantName {
				t.Errorf("LoadProfile(%q).Name = %q, want %q", tc.arg, p.Name, tc.wantName)
			}
		})
	}
}
