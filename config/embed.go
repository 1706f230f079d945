// Package config embeds Meridian's generated manifests (CRDs, webhook
// configurations and roles from `make manifests`) so that the meridian
// binary can install them without the source tree, as `meridian testbed up`
// and `meridian controller --bootstrap` do.
package config

import (
	"embed"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// CRDs holds the CustomResourceDefinitions that `make manifests` generates
// into crd/bases, one file per kind.
//
//go:embed crd/bases/*.yaml
var CRDs embed.FS

// Webhooks holds the admission webhook configurations `make manifests`
// generates from the +kubebuilder:webhook markers (webhook/manifests.yaml),
// which `meridian controller --bootstrap` writes into a control-plane-only
// management cluster.
//
//go:embed webhook/manifests.yaml
var Webhooks []byte

// RBAC holds the ClusterRole of each component (rbac/<component>/role.yaml)
// that `make manifests` generates from its +kubebuilder:rbac markers; the
// testbed binds the agent's and the broker's to their own service
// accounts, and the envtests run every component with its own.
//
//go:embed rbac/*/role.yaml
var RBAC embed.FS

// ComponentRole returns the ClusterRole `make manifests` generated for
// component (controller, agent, broker, ...).
func ComponentRole(component string) (*rbacv1.ClusterRole, error) {
	data, err := RBAC.ReadFile("rbac/" + component + "/role.yaml")
	if err != nil {
		return nil, fmt.Errorf("failed to read the %s's generated ClusterRole (run make manifests): %w", component, err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		return nil, fmt.Errorf("failed to decode the %s's generated ClusterRole: %w", component, err)
	}
	return role, nil
}
