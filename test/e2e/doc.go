// Package e2e runs Meridian end to end on the local testbed: real member
// clusters (kube-apiserver, etcd, kube-controller-manager, kube-scheduler
// and kwok nodes, so that pods really schedule, run or stay Pending) and the
// management-plane controllers as `meridian controller` runs them.
//
// The tests start their own testbed in a temporary folder and stop it when
// they end; they are skipped under -short. `make test-e2e` runs them alone.
package e2e
