package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestBrokerRefusesBadFlags: the broker and its subcommands name the flag
// that is wrong before they connect to anything.
func TestBrokerRefusesBadFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no broker id", []string{"broker"}, "broker-id"},
		{"broker id not a DNS label", []string{"broker", "--broker-id=Broker_1"}, `broker-id "Broker_1"`},
		{"negative confirm timeout", []string{"broker", "--broker-id=b", "--confirm-timeout=-1s"}, "confirm-timeout -1s"},
		{"onboard without a cluster id", []string{"broker", "onboard", "--kubeconfig=/dev/null"}, "cluster-id"},
		{"query without requests", []string{"broker", "query"}, "cpu or memory"},
		{"query with a bad cpu", []string{"broker", "query", "--cpu=two"}, `cpu "two"`},
		{"query with a negative memory", []string{"broker", "query", "--memory=-1Gi"}, `memory "-1Gi"`},
		{"query with a bad price", []string{"broker", "query", "--cpu=1", "--max-price=cheap"}, `max-price "cheap"`},
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
