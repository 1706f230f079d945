package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSuggestRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	notModel := filepath.Join(dir, "not-a-model.json")
	if err := os.WriteFile(notModel, []byte(`{"format":"something/v9"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no model", args: []string{"--prometheus", "http://127.0.0.1:9090"}, want: "--model is required"},
		{name: "no Prometheus", args: []string{"--model", notModel}, want: "--prometheus is required"},
		{name: "not a model", args: []string{"--model", notModel, "--prometheus", "http://127.0.0.1:9090"}, want: `invalid --model "` + notModel + `"`},
		{name: "missing model", args: []string{"--model", filepath.Join(dir, "none.json"), "--prometheus", "http://127.0.0.1:9090"}, want: "none.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := newSuggestCommand()
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetArgs(tc.args)
			err := cmd.ExecuteContext(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}
