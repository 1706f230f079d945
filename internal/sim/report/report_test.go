package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func ptr(v float64) *float64 { return &v }

// result is a small fixed result, so the outputs can be pinned.
func result() *sim.Result {
	series := &sim.Series{
		Minutes:          []float64{0, 1, 2},
		Clusters:         []string{"a", "cloud"},
		AssignedCores:    [][]float64{{1, 4, 3}, {0, 2, 0}},
		AllocatableCores: [][]float64{{4, 4, 4}, {0, 4, 0}},
		RunningPods:      [][]int{{1, 4, 3}, {0, 2, 0}},
		PendingPods:      [][]int{{0, 0, 0}, {0, 0, 0}},
		Asked:            []int{1, 7, 3},
		Running:          []int{1, 6, 3},
		Unplaced:         []int{0, 1, 0},
		PendingFraction:  []float64{0, 1.0 / 7, 0},
		Allocation:       []float64{0.25, 0.75, 0.75},
		CloudCores:       []float64{0, 4, 0},
		CloudPaidCores:   []float64{4, 4, 0},
	}
	return &sim.Result{
		Scenario: "tiny", Description: "A tiny scenario", Seed: 3, DurationSeconds: 180, Tasks: 8,
		Policies: []sim.PolicyResult{
			{Policy: "kubefed", Summary: sim.Summary{MaxPendingFraction: 0.65, MeanPendingFraction: 0.3, MaxClusterAllocation: 7, MaxClusterAllocationCluster: "a",
				MaxOverallAllocation: 2, Clusters: []sim.ClusterSummary{{Cluster: "a", MaxAllocation: 7, MeanAllocation: 3}}}, Series: series},
			{Policy: "meridian", Summary: sim.Summary{MaxPendingFraction: 1.0 / 7, MeanPendingFraction: 0.05, MaxClusterAllocation: 1, MaxClusterAllocationCluster: "a",
				MaxOverallAllocation: 0.75, CloudCPUHours: 0.13, CloudProvisionedAtSeconds: ptr(0), CloudReadyAtSeconds: ptr(60), CloudRemovedAtSeconds: ptr(120),
				ReplicasMovedBack: 2, Decisions: 9, DecisionP50Seconds: 4e-6, DecisionP99Seconds: 2.5e-5,
				Clusters: []sim.ClusterSummary{{Cluster: "a", MaxAllocation: 1, MeanAllocation: 0.6}, {Cluster: "cloud", Cloud: true, MaxAllocation: 0.5, MeanAllocation: 0.5}}},
				Events: []sim.Event{{AtSeconds: 0, Kind: sim.EventCloudProvisioning, Message: "cloud cluster asked for"}}, Series: series},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestOutputs(t *testing.T) {
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"table.golden.txt", func(b *bytes.Buffer) error { return Table(b, result()) }},
		{"results.golden.json", func(b *bytes.Buffer) error { return JSON(b, result()) }},
		{"series.golden.csv", func(b *bytes.Buffer) error { return CSV(b, result().Policies[1].Series) }},
		{"series.golden.json", func(b *bytes.Buffer) error { return SeriesJSON(b, result()) }},
		{"report.golden.html", func(b *bytes.Buffer) error { return HTML(b, result()) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatalf("write error: %v", err)
			}
			golden(t, tc.name, b.Bytes())
		})
	}
}

func TestJSONFields(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, result()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenarios []struct {
			Policies []map[string]any `json:"policies"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	required := []string{"maxPendingFraction", "meanPendingFraction", "maxClusterAllocation", "cloudCPUHours", "replicasMovedBack", "decisionP50Seconds", "decisionP99Seconds"}
	var missing []string
	for _, p := range doc.Scenarios[0].Policies {
		for _, f := range required {
			if _, ok := p[f]; !ok {
				missing = append(missing, p["policy"].(string)+"."+f)
			}
		}
	}
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("missing JSON fields (-want +got):\n%s", diff)
	}
}

func TestSVG(t *testing.T) {
	c := chart{title: `a <b> & "c"`, x: []float64{0, 1}, lines: []line{{name: "x<y", values: []float64{1, 2}}}, stacked: true}
	got := c.svg()
	for _, bad := range []string{"<b>", "x<y"} {
		if strings.Contains(got, bad) {
			t.Errorf("svg contains unescaped %q", bad)
		}
	}
	if !strings.HasPrefix(got, "<svg") || !strings.HasSuffix(got, "</svg>") {
		t.Errorf("svg is not one element: %.40q...", got)
	}
}
