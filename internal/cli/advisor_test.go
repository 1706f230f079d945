package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAdvisorServeFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{name: "missing data dir", args: []string{"advisor", "serve", "--data-dir", t.TempDir() + "/absent"}, want: "invalid --data-dir"},
		{name: "bad address", args: []string{"advisor", "serve", "--data-dir", t.TempDir(), "--addr", "127.0.0.1:http-alt-x"}, want: "invalid --addr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, tc.args...)
			got := ""
			if err != nil {
				got, _, _ = strings.Cut(err.Error(), " \"")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("error prefix (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

func TestAdvisorEvalJSON(t *testing.T) {
	stdout, stderr, err := execute(t, "advisor", "eval", "--hours", "6", "--format", "json", "--html", t.TempDir()+"/eval.html")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	var doc struct {
		Policies []struct {
			Name string `json:"name"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	var names []string
	for _, p := range doc.Policies {
		names = append(names, p.Name)
	}
	want := []string{"seed (300 samples, in-sample reliability)", "meridian", "cpu hpa (70 %)", "oracle (hindsight)"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("policies (-want +got):\n%s", diff)
	}
}
