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
		{"kubelet endpoint without an address", []string{"agent", "--cluster-id=a", "--kubelet-bind-address=:10250"}, `--kubelet-address "": want the IP address`},
		{"kubelet address not an IP", []string{"agent", "--cluster-id=a", "--kubelet-bind-address=:10250", "--kubelet-address=agent.local"}, `--kubelet-address "agent.local"`},
		{"kubelet bind address without a port", []string{"agent", "--cluster-id=a", "--kubelet-bind-address=10.0.0.1"}, `--kubelet-bind-address "10.0.0.1": want host:port`},
		{"kubelet key without its certificate", []string{"agent", "--cluster-id=a", "--kubelet-bind-address=127.0.0.1:0", "--kubelet-key-file=k.pem"}, "--kubelet-cert-file and --kubelet-key-file"},
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
