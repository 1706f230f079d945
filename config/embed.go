// Package config embeds Meridian's generated manifests (CRDs from `make
// manifests`) so that the meridian binary can install them without the
// source tree, as `meridian testbed up` does.
package config

import "embed"

// CRDs holds the CustomResourceDefinitions that `make manifests` generates
// into crd/bases, one file per kind.
//
//go:embed crd/bases/*.yaml
var CRDs embed.FS

// RBAC holds the ClusterRole of each component (rbac/<component>/role.yaml)
// that `make manifests` generates from its +kubebuilder:rbac markers; the
// testbed binds the broker's to the broker's own service account.
//
//go:embed rbac/*/role.yaml
var RBAC embed.FS
