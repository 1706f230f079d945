package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSimCarbonJSON(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, err := execute(t, "sim", "carbon", "--seed", "2", "--jobs", "6", "--oracle-iterations", "50", "--format", "json", "--out", dir)
	if err != nil {
		t.Fatalf("sim carbon error: %v\n%s", err, stderr)
	}
	var doc struct {
		Results []struct {
			Scenario struct {
				Name string `json:"name"`
				Seed uint64 `json:"seed"`
			} `json:"scenario"`
			Jobs     int `json:"jobs"`
			Policies []struct {
				Policy string `json:"policy"`
			} `json:"policies"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	if len(doc.Results) != 1 {
		t.Fatalf("results = %d, want 1", len(doc.Results))
	}
	r := doc.Results[0]
	var policies []string
	for _, p := range r.Policies {
		policies = append(policies, p.Policy)
	}
	want := []string{"carbon-agnostic", "round-robin", "temporal-only", "spatial-only", "meridian", "meridian-perfect", "oracle"}
	if diff := cmp.Diff(want, policies); diff != "" {
		t.Errorf("policies mismatch (-want +got):\n%s", diff)
	}
	if r.Scenario.Name != "carbon-2023-seed-2" || r.Scenario.Seed != 2 || r.Jobs != 6 {
		t.Errorf("scenario = %+v with %d jobs, want carbon-2023-seed-2, seed 2, 6 jobs", r.Scenario, r.Jobs)
	}
	for _, name := range []string{"index.html", "results.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("report file %s: %v", name, err)
		}
	}
	for _, line := range []string{"sim: carbon-2023-seed-2: oracle done", "report written to"} {
		if !strings.Contains(stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr)
		}
	}
}

func TestSimCarbonInvalid(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "format", args: []string{"--format", "csv"}, wantErr: `invalid --format "csv": want table or json`},
		{name: "jobs", args: []string{"--jobs", "0"}, wantErr: "invalid --jobs 0: must be positive"},
		{name: "headroom", args: []string{"--headroom", "0.5"}, wantErr: "invalid --headroom 0.5: must be at least 1, so that carbon-agnostic fits"},
		{name: "seed", args: []string{"--seed", "0"}, wantErr: "invalid --seed 0: seeds start at 1"},
		{name: "iterations", args: []string{"--oracle-iterations", "0"}, wantErr: "invalid --oracle-iterations 0: must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, append([]string{"sim", "carbon", "-q"}, tc.args...)...)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, got); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
