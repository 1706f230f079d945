package testbed

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"
)

// Pod annotations that set the usage kwok simulates for each container of
// the pod, as metrics-server then reports it in metrics.k8s.io PodMetrics
// and `kubectl top pod`. A pod without them uses 1m CPU and 1Mi memory per
// container. They are kwok's own annotations, read by the
// ClusterResourceUsage kwokctl installs with metrics-server.
const (
	// UsageCPUAnnotation is a container's CPU usage, a quantity: "250m".
	UsageCPUAnnotation = "kwok.x-k8s.io/usage-cpu"
	// UsageMemoryAnnotation is a container's memory working set, a
	// quantity: "64Mi".
	UsageMemoryAnnotation = "kwok.x-k8s.io/usage-memory"
)

// MetricResolution is how often metrics-server scrapes each member's kwok,
// the smallest interval metrics-server accepts. A changed usage annotation
// shows in PodMetrics after one to two intervals: CPU is a rate between
// two scrapes.
const MetricResolution = 10 * time.Second

// kubeletRequestTimeout bounds a scrape; metrics-server wants it below
// nine tenths of the resolution (its default, 10s, is not).
const kubeletRequestTimeout = 5 * time.Second

// metricsServerPatch changes the flags kwokctl gives metrics-server:
// scrape every MetricResolution instead of 15s, and reach each node's
// emulated kubelet at its ExternalIP (kubeletAddress): a member's nodes
// have fictional InternalIPs, and kwok listens on 127.0.0.1 only.
func metricsServerPatch() kwokctlComponentPatch {
	return kwokctlComponentPatch{
		Name: MetricsServer,
		ExtraArgs: []kwokctlExtraArg{
			{Key: "metric-resolution", Value: MetricResolution.String(), Override: true},
			{Key: "kubelet-preferred-address-types", Value: "ExternalIP", Override: true},
			{Key: "kubelet-request-timeout", Value: kubeletRequestTimeout.String()},
		},
	}
}

// kwokctlAdminUser is the common name of the certificate kwokctl
// generates for a cluster's administrator, which the API server also
// proxies aggregated requests with (kwokctl's pki.DefaultUser).
const kwokctlAdminUser = "kwok-admin"

// aggregationArgs make a member's API server publish the CA of the
// client certificate it proxies aggregated requests with, and the headers
// that carry the user (kwokctl sets the certificate, not these). Without
// them metrics-server cannot tell who asks: it logs a missing
// requestheader CA every few seconds and sees every request as the API
// server's own. The CA also signs the administrator's certificate, so the
// API server wants the proxy's name too.
func aggregationArgs(pkiDir string) []kwokctlExtraArg {
	return []kwokctlExtraArg{
		{Key: "requestheader-client-ca-file", Value: filepath.Join(pkiDir, "ca.crt")},
		{Key: "requestheader-allowed-names", Value: kwokctlAdminUser},
		{Key: "requestheader-username-headers", Value: "X-Remote-User"},
		{Key: "requestheader-group-headers", Value: "X-Remote-Group"},
		{Key: "requestheader-extra-headers-prefix", Value: "X-Remote-Extra-"},
	}
}

// waitMetricsAPI waits until the API server serves metrics.k8s.io, which
// it does once metrics-server answers behind the APIService kwokctl
// registered; sv starts metrics-server again if it exits meanwhile.
func waitMetricsAPI(ctx context.Context, sv *supervisor, cr *credentials) error {
	cs, err := kubernetes.NewForConfig(cr.restConfig())
	if err != nil {
		return fmt.Errorf("failed to create a client: %w", err)
	}
	var last error
	err = poll(ctx, 200*time.Millisecond, func() (bool, error) {
		if err := sv.check(ctx); err != nil {
			return false, err
		}
		_, last = cs.Discovery().RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1").DoRaw(ctx)
		return last == nil, nil
	})
	if err != nil && last != nil && !isComponentError(err) {
		return fmt.Errorf("metrics.k8s.io not served (last answer: %w): %w", last, err)
	}
	return err
}
