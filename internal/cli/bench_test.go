package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestBenchLoadRefusesBadFlags: bench load names the flag that is wrong
// before it starts a testbed.
func TestBenchLoadRefusesBadFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no burst", []string{"--burst=0"}, "--burst 0"},
		{"cold start not above the burst", []string{"--burst=100", "--cold-start=50"}, "--cold-start 50"},
		{"fill above one", []string{"--fill=1.5"}, "--fill 1.5"},
		{"no timeout", []string{"--timeout=0s"}, "--timeout 0s"},
		{"unknown profile", []string{"--profile=nope"}, `--profile "nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := NewRootCommand()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(append([]string{"bench", "load"}, tc.args...))
			err := root.ExecuteContext(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one naming %q", err, tc.want)
			}
		})
	}
}
