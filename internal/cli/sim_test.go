package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func execute(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := NewRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

func TestSimJSON(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, err := execute(t, "sim", "--scenario", "vi-c", "--seed", "2", "--format", "json", "--out", dir)
	if err != nil {
		t.Fatalf("sim error: %v\n%s", err, stderr)
	}
	var doc struct {
		Scenarios []struct {
			Scenario string           `json:"scenario"`
			Seed     uint64           `json:"seed"`
			Policies []map[string]any `json:"policies"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	type shape struct {
		Scenario string
		Seed     uint64
		Policies []string
		Files    []string
	}
	got := shape{Scenario: doc.Scenarios[0].Scenario, Seed: doc.Scenarios[0].Seed}
	for _, p := range doc.Scenarios[0].Policies {
		got.Policies = append(got.Policies, p["policy"].(string))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		got.Files = append(got.Files, e.Name())
	}
	want := shape{Scenario: "vi-c", Seed: 2, Policies: []string{"traffic-aware", "worst-fit", "best-fit"}, Files: []string{
		"index.html", "results.json", "vi-c-best-fit.csv", "vi-c-series.json", "vi-c-traffic-aware.csv", "vi-c-worst-fit.csv",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sim --format json (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr, "sim: vi-c simulated in") {
		t.Errorf("stderr has no progress line:\n%s", stderr)
	}
}

func TestSimErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\nduration: 1h\nclusterz: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown built-in", []string{"sim", "-s", "vi-z"}, `no built-in scenario "vi-z" (built-in: heavy-tail, vi-b, vi-c, vi-d; or give a file path)`},
		{"malformed file", []string{"sim", "-s", bad}, bad + ":3:1: clusterz: unknown field"},
		{"format", []string{"sim", "--format", "xml"}, `invalid --format "xml": want table or json`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestSimList(t *testing.T) {
	stdout, _, err := execute(t, "sim", "list")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n")[1:] {
		names = append(names, strings.Fields(l)[0])
	}
	if diff := cmp.Diff([]string{"heavy-tail", "vi-b", "vi-c", "vi-d"}, names); diff != "" {
		t.Errorf("sim list (-want +got):\n%s", diff)
	}
}
