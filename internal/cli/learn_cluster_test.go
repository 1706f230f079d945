package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// smallScenario is two members and a cloud with a short generated
// workload: enough for the evaluation to place through the simulator.
const smallScenario = `name: small-clusters
duration: 10m
clusters:
  - name: a
    nodes: [{count: 2, cpu: "2", memory: 4Gi}]
  - name: b
    nodes: [{count: 3, cpu: "4", memory: 16Gi}]
latencyMs:
  a: {b: 5, cloud: 10}
  b: {cloud: 8}
cloud:
  name: cloud
  clusterDelay: 1m
  nodeDelay: 1m
  flavors: [{name: large, cpu: "4", memory: 8Gi, pricePerHour: {amount: "0.16", currency: USD}}]
workload:
  generator:
    tasks: 60
    window: 8m
    cpuMilli: {kind: lognormal, median: 400, sigma: 0.9, min: 50, max: 2000}
    memoryMiB: {kind: lognormal, median: 256, sigma: 1.0, min: 32, max: 3072}
    durationMinutes: {kind: lognormal, median: 3, sigma: 1.0, max: 30}
policies:
  - name: placeholder
    placement: WorstFit
`

func TestLearnClusterTrainAndEval(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "clusters.json")
	if _, err := runLearn(t, "train", "--level", "cluster", "--steps", "300", "--out", model, "--quiet"); err != nil {
		t.Fatal(err)
	}
	sc := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(sc, []byte(smallScenario), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runLearn(t, "eval", "--level", "cluster", "--model", model, "--scenario", sc, "--seed", "7", "--format", "json",
		"--html", filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			Scenario string `json:"scenario"`
			Policy   string `json:"policy"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("eval output is not JSON: %v\n%s", err, out)
	}
	var got []string
	for _, r := range doc.Results {
		got = append(got, r.Scenario+"/"+r.Policy)
	}
	want := []string{"small-clusters/Learned", "small-clusters/WorstFit", "small-clusters/BestFit"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	html, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "<svg") || !strings.Contains(string(html), "small-clusters, seed 7") {
		t.Errorf("the HTML report has no chart of the scenario")
	}

	// Refusals name the flag.
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{name: "unknown level", args: []string{"train", "--level", "rack", "--out", filepath.Join(dir, "x.json")}, want: "--level"},
		{name: "node flag", args: []string{"train", "--level", "cluster", "--reward", "EE", "--out", filepath.Join(dir, "x.json")}, want: "--reward"},
		{name: "node flag in eval", args: []string{"eval", "--level", "cluster", "--model", model, "--scenario", sc, "--nodes", "10"}, want: "--nodes"},
		{name: "cluster flag at node level", args: []string{"eval", "--model", model, "--scenario", sc}, want: "--scenario"},
		{name: "training seed", args: []string{"eval", "--level", "cluster", "--model", model, "--scenario", sc, "--seed", "2000000"}, want: "--seed"},
		{name: "missing model file", args: []string{"eval", "--level", "cluster", "--model", filepath.Join(dir, "missing.json"), "--scenario", sc}, want: "missing.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runLearn(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}
