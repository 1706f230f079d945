package clusterapi_test

import (
	"strings"
	"testing"

	"github.com/meridian-dev/meridian/internal/cloud/clusterapi"
)

func TestNewOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts clusterapi.Options
		want string
	}{{
		name: "defaults",
	}, {
		name: "every option set",
		opts: clusterapi.Options{
			KubernetesVersion: "v1.35.2",
			PodCIDRs:          []string{"10.244.0.0/16", "fd00:10:244::/56"},
			ServiceCIDRs:      []string{"10.96.0.0/12"},
			OpenStack: clusterapi.OpenStackOptions{
				CloudName:          "ovh",
				Regions:            map[string]string{"nancy": "RegionOne"},
				Image:              "ubuntu-2404-kube-v1.35.2",
				ControlPlaneFlavor: "m1.medium",
				SSHKeyName:         "ops",
				ExternalNetworkID:  "0f3ac5a4-0a4b-4a8e-9c1e-3f1e5a0d2c11",
				NodeCIDR:           "10.8.0.0/24",
				DNSNameservers:     []string{"9.9.9.9"},
			},
		},
	}, {
		name: "version without v",
		opts: clusterapi.Options{KubernetesVersion: "1.36.3"},
		want: `KubernetesVersion: Invalid value: "1.36.3": must be a Kubernetes release such as v1.36.3`,
	}, {
		name: "pod network that is no CIDR",
		opts: clusterapi.Options{PodCIDRs: []string{"10.244.0.0/16", "10.245.0.0"}},
		want: `PodCIDRs[1]: Invalid value: "10.245.0.0": must be a CIDR`,
	}, {
		name: "OpenStack subnet that is no CIDR",
		opts: clusterapi.Options{OpenStack: clusterapi.OpenStackOptions{NodeCIDR: "10.6.0.0/33"}},
		want: `OpenStack.NodeCIDR: Invalid value: "10.6.0.0/33"`,
	}, {
		name: "OpenStack name server that is no address",
		opts: clusterapi.Options{OpenStack: clusterapi.OpenStackOptions{DNSNameservers: []string{"dns.example"}}},
		want: `OpenStack.DNSNameservers[0]: Invalid value: "dns.example": must be an IP address`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := clusterapi.New(nil, tc.opts)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("New: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("New returned %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
