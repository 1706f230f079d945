//go:build tools

// Package tools pins the Helm release whose helm binary `make helm-bin`
// builds, to lint, render and install charts/meridian in the tests.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
