//go:build tools

// Package metricsserver records the main package that hack/k8s-bin.sh
// builds, so that go mod tidy keeps its dependencies.
package metricsserver

import (
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
