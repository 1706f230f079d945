//go:build tools

// Package k8s records the main packages that hack/k8s-bin.sh builds, so that
// go mod tidy keeps their dependencies.
package k8s

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "helm.sh/helm/v4/cmd/helm"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
