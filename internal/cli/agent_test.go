package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestAgentRefusesBadFlags: the agent names the flag that is wrong before
// it connects to anything.
func TestAgentRefusesBadFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no cluster id", []string{"agent"}, "cluster-id"},
		{"ttl shorter than the partial cadence", []string{"agent", "--cluster-id=a", "--advertisement-ttl=5m"}, "advertisement-ttl 5m0s"},
		{"change fraction above one", []string{"agent", "--cluster-id=a", "--change-fraction=2"}, "change-fraction 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := NewRootCommand()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(tc.args)
			err := root.ExecuteContext(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one naming %q", err, tc.want)
			}
		})
	}
}
