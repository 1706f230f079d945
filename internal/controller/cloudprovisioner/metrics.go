package cloudprovisioner

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "meridian_cloud_decisions_total",
		Help: "Decisions of a CloudProvisioner by action (ProvisionCluster, AddNodes, RemoveNodes, RemoveCluster).",
	}, []string{"namespace", "name", "action"})
	cloudNodes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "meridian_cloud_nodes",
		Help: "Worker nodes of a CloudProvisioner's cloud cluster, ready or not.",
	}, []string{"namespace", "name"})
	cloudReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "meridian_cloud_ready",
		Help: "1 while a CloudProvisioner's cloud cluster is a Ready member, else 0.",
	}, []string{"namespace", "name"})
	provisioningSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "meridian_cloud_provisioning_duration_seconds",
		Help:    "Time from asking for a cloud cluster to its joining as a Ready member.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 12),
	}, []string{"namespace", "name"})
)

func init() {
	metrics.Registry.MustRegister(decisions, cloudNodes, cloudReady, provisioningSeconds)
}
