package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func runLearn(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newLearnCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(t.Context())
	return out.String(), err
}

func TestLearnTrainAndEval(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.json")
	if _, err := runLearn(t, "train", "--reward", "EE", "--steps", "400", "--out", model, "--quiet"); err != nil {
		t.Fatal(err)
	}
	out, err := runLearn(t, "eval", "--model", model, "--nodes", "10", "--duration", "5m", "--seed", "7", "--format", "json",
		"--html", filepath.Join(t.TempDir(), "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			Policy string `json:"policy"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("eval output is not JSON: %v\n%s", err, out)
	}
	var got []string
	for _, r := range doc.Results {
		got = append(got, r.Policy)
	}
	if diff := cmp.Diff([]string{"EE", "LeastAllocated", "MostAllocated", "BalancedAllocation"}, got); diff != "" {
		t.Errorf("policies (-want +got):\n%s", diff)
	}

	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "a training seed", args: []string{"eval", "--model", model, "--seed", "1000000"}, want: "was trained on scenario seeds"},
		{name: "an unknown reward", args: []string{"train", "--reward", "XX"}, want: `reward "XX": must be one of`},
		{name: "an unknown format", args: []string{"eval", "--format", "yaml"}, want: `invalid --format "yaml"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runLearn(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
