package testbed

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// brokerProfile is a sharing profile of three clusters whose broker
// section is broker (YAML, indented for sharing:).
func brokerProfile(broker string) string {
	return `name: x
clusters:
  - {name: home, nodes: [{count: 1, cpu: "2", memory: 4Gi}]}
  - {name: big, nodes: [{count: 1, cpu: "8", memory: 32Gi}]}
  - {name: idle, nodes: [{count: 1, cpu: "1", memory: 1Gi}]}
sharing:
  peerings:
    - {consumer: home, provider: big}
` + broker
}

func TestBrokerProfileErrors(t *testing.T) {
	tests := []struct {
		name   string
		broker string
		want   []string
	}{
		{
			name:   "no members",
			broker: "  broker: {}\n",
			want:   []string{"sharing.broker: give at least one of providers (members that lend through the broker) and consumers"},
		},
		{
			name: "unknown cluster and id",
			broker: `  broker:
    cluster: elsewhere
    id: Broker_1
    providers: [big]
`,
			want: []string{
				`sharing.broker.cluster: "elsewhere" is neither "management" nor a cluster of the profile`,
				`sharing.broker.id "Broker_1": must be a DNS label`,
			},
		},
		{
			name: "id of a cluster",
			broker: `  broker:
    id: big
    providers: [big]
`,
			want: []string{`sharing.broker.id: "big" is the name of a cluster of the profile`},
		},
		{
			name: "members without agents or twice",
			broker: `  broker:
    providers: [big, idle, big]
    consumers: [nowhere]
`,
			want: []string{
				`sharing.broker.providers[1]: "idle" runs no agent: use one of the clusters of sharing.peerings (big, home)`,
				`sharing.broker.providers[2]: "big" is listed twice`,
				`sharing.broker.consumers[0]: "nowhere" runs no agent`,
			},
		},
		{
			name: "share and flags the testbed sets",
			broker: `  broker:
    providers: [big]
    sharePercent: 101
    args: [--confirm-timeout=5s, --broker-id=other, --kubeconfig]
`,
			want: []string{
				`sharing.broker.sharePercent: 101 must be from 0 to 100`,
				`sharing.broker.args[1]: "--broker-id=other" is set by the testbed`,
				`sharing.broker.args[2]: "--kubeconfig" is set by the testbed`,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseProfile([]byte(brokerProfile(tc.broker)))
			if err == nil {
				t.Fatal("ParseProfile() succeeded, want an error")
			}
			var missing []string
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					missing = append(missing, w)
				}
			}
			if len(missing) > 0 {
				t.Errorf("error lacks %q; error:\n%v", missing, err)
			}
			if strings.Contains(err.Error(), "confirm-timeout") {
				t.Errorf("error names --confirm-timeout, which a profile may set:\n%v", err)
			}
		})
	}
}

func TestBrokerProfileDefaults(t *testing.T) {
	p, err := ParseProfile([]byte(brokerProfile("  broker:\n    providers: [big]\n    consumers: [home, big]\n")))
	if err != nil {
		t.Fatal(err)
	}
	b := p.Sharing.Broker
	names, roles := b.members()
	got := map[string]any{"cluster": b.cluster(), "id": b.id(), "members": names, "roles": roles}
	want := map[string]any{
		"cluster": ManagementCluster, "id": DefaultBrokerID, "members": []string{"big", "home"},
		"roles": map[string]sharingv1alpha1.PeerRole{"big": sharingv1alpha1.RoleBoth, "home": sharingv1alpha1.RoleConsumer},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("broker (-want +got):\n%s", diff)
	}
}

// TestSharingProfileBroker: the shipped sharing profile runs a broker in
// the management cluster that big and pricey lend through and home
// borrows through.
func TestSharingProfileBroker(t *testing.T) {
	p, err := LoadProfile("sharing")
	if err != nil {
		t.Fatal(err)
	}
	if p.Sharing.Broker == nil {
		t.Fatal("profile sharing has no broker")
	}
	_, roles := p.Sharing.Broker.members()
	want := map[string]sharingv1alpha1.PeerRole{"big": sharingv1alpha1.RoleProvider, "pricey": sharingv1alpha1.RoleProvider, "home": sharingv1alpha1.RoleConsumer}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("broker members (-want +got):\n%s", diff)
	}
}
