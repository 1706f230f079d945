package clusterapi_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/cloud/clusterapi"
)

func (s *suite) testInvalid(t *testing.T) {
	base := s.namespace(t)
	ns := base.Namespace
	for name, data := range map[string]map[string][]byte{
		"wrong-key":   {"cloud.yaml": []byte(cloudsYAML)},
		"other-cloud": {clusterapi.CloudsYAMLKey: []byte(strings.Replace(cloudsYAML, "  openstack:", "  other:", 1))},
	} {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
		if err := s.capi.Create(t.Context(), secret); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		change func(*cloud.Spec)
		want   []string
	}{{
		name:   "provider without support",
		change: func(s *cloud.Spec) { s.Provider = "AWS" },
		want:   []string{`spec.provider: Unsupported value: "AWS": supported values: "OpenStack"`},
	}, {
		name:   "no credentials",
		change: func(s *cloud.Spec) { s.CredentialsSecret = "" },
		want:   []string{"spec.credentialsSecretRef: Required value"},
	}, {
		name:   "credentials Secret missing",
		change: func(s *cloud.Spec) { s.CredentialsSecret = "nope" },
		want:   []string{`spec.credentialsSecretRef.name: Invalid value: "nope": no Secret ` + ns + `/nope: create it with a clouds.yaml key`},
	}, {
		name:   "credentials Secret without clouds.yaml",
		change: func(s *cloud.Spec) { s.CredentialsSecret = "wrong-key" },
		want:   []string{"Secret " + ns + "/wrong-key has no clouds.yaml key (keys: [cloud.yaml])"},
	}, {
		name:   "clouds.yaml without the cloud",
		change: func(s *cloud.Spec) { s.CredentialsSecret = "other-cloud" },
		want:   []string{`the clouds.yaml of Secret ` + ns + `/other-cloud has no cloud "openstack" (clouds: [other])`},
	}, {
		name:   "no flavor",
		change: func(s *cloud.Spec) { s.Pools = []cloud.Pool{{Name: "medium", Workers: 1}} },
		want:   []string{"spec.flavors[medium].instanceType: Required value"},
	}, {
		name:   "name too long for a MachineDeployment label",
		change: func(s *cloud.Spec) { s.Name = strings.Repeat("a", 59) },
		want:   []string{"spec.cloudClusterName: Invalid value: \"" + strings.Repeat("a", 59) + "\": must be at most 58 characters"},
	}, {
		name:   "name that is no host name",
		change: func(s *cloud.Spec) { s.Name = "Cloud.1" },
		want:   []string{`spec.cloudClusterName: Invalid value: "Cloud.1"`},
	}, {
		name: "negative workers",
		change: func(s *cloud.Spec) {
			s.Pools = []cloud.Pool{{Name: cloud.DefaultPool, Flavor: "m1.large", Workers: -1}}
		},
		want: []string{`status.desiredNodes: Invalid value: -1: pool "0": must be 0 or more`},
	}, {
		name: "a pool without a flavor",
		change: func(s *cloud.Spec) {
			s.Pools = []cloud.Pool{{Name: "small", Flavor: "m1.small", Workers: 1}, {Name: "large", Workers: 1}}
		},
		want: []string{"spec.flavors[large].instanceType: Required value"},
	}, {
		name: "two pools of one name",
		change: func(s *cloud.Spec) {
			s.Pools = []cloud.Pool{{Name: "small", Flavor: "m1.small"}, {Name: "small", Flavor: "m1.small"}}
		},
		want: []string{`spec.flavors[small].name: Duplicate value: "small"`},
	}, {
		name: "a pool name too long for the MachineDeployment label",
		change: func(s *cloud.Spec) {
			s.Name = strings.Repeat("a", 50)
			s.Pools = []cloud.Pool{{Name: "general-purpose", Flavor: "m1.small"}}
		},
		want: []string{`spec.flavors[general-purpose].name: Invalid value: "general-purpose": with cluster name`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			spec := base
			tc.change(&spec)
			err := s.backend.Ensure(t.Context(), spec)
			if !errors.Is(err, cloud.ErrInvalidSpec) {
				t.Fatalf("Ensure returned %v, want an error wrapping %v", err, cloud.ErrInvalidSpec)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Ensure error %q does not say %q", err, want)
				}
			}
			if got := s.existing(t, ns, objectsOf("cloud1")); got != nil {
				t.Errorf("objects written for a bad spec: %v", got)
			}
		})
	}
}

func (s *suite) testRejected(t *testing.T) {
	spec := s.namespace(t)
	for _, tc := range []struct {
		name    string
		backend func(*testing.T) *clusterapi.Backend
		spec    func(cloud.Spec) cloud.Spec
		want    string
	}{{
		name: "label value the API server refuses",
		spec: func(s cloud.Spec) cloud.Spec {
			s.Labels = map[string]string{"team": "not a label value"}
			return s
		},
		want: "failed to apply OpenStackCluster " + spec.Namespace + "/cloud1: ",
	}, {
		name: "more pod networks than the Cluster CRD allows",
		backend: func(t *testing.T) *clusterapi.Backend {
			cidrs := make([]string, 101)
			for i := range cidrs {
				cidrs[i] = fmt.Sprintf("10.%d.0.0/16", i)
			}
			b, err := clusterapi.New(s.mgmt, clusterapi.Options{PodCIDRs: cidrs})
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		spec: func(s cloud.Spec) cloud.Spec { return s },
		want: "failed to apply Cluster " + spec.Namespace + "/cloud1: ",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b := s.backend
			if tc.backend != nil {
				b = tc.backend(t)
			}
			err := b.Ensure(t.Context(), tc.spec(spec))
			if err == nil || errors.Is(err, cloud.ErrInvalidSpec) || !apierrors.IsInvalid(err) {
				t.Fatalf("Ensure returned %v, want the API server's Invalid error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Ensure error %q does not start with %q", err, tc.want)
			}
		})
	}
}
