package cluster

import (
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/meridian-dev/meridian/internal/inventory"
)

var (
	clusterReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "meridian_cluster_ready",
		Help: "1 when the member cluster answered its last heartbeat, 0 otherwise.",
	}, []string{"cluster"})
	clusterNodes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "meridian_cluster_nodes",
		Help: "Nodes of the member cluster.",
	}, []string{"cluster"})
	clusterAllocatable = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "meridian_cluster_allocatable",
		Help: "Allocatable resources of the member's schedulable nodes (cpu in cores, memory in bytes, pods).",
	}, []string{"cluster", "resource"})
	clusterAllocated = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "meridian_cluster_allocated",
		Help: "Requests of the pods bound to the member's nodes (cpu in cores, memory in bytes, pods).",
	}, []string{"cluster", "resource"})
)

func init() {
	metrics.Registry.MustRegister(clusterReady, clusterNodes, clusterAllocatable, clusterAllocated)
}

func recordHealth(cluster string, ready bool) {
	v := 0.0
	if ready {
		v = 1
	}
	clusterReady.WithLabelValues(cluster).Set(v)
}

func recordCapacity(cluster string, s inventory.Summary) {
	clusterNodes.WithLabelValues(cluster).Set(float64(s.Nodes))
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		a, b := s.Allocatable[name], s.Allocated[name]
		clusterAllocatable.WithLabelValues(cluster, string(name)).Set(a.AsApproximateFloat64())
		clusterAllocated.WithLabelValues(cluster, string(name)).Set(b.AsApproximateFloat64())
	}
}

func forget(cluster string) {
	clusterReady.DeleteLabelValues(cluster)
	clusterNodes.DeleteLabelValues(cluster)
	clusterAllocatable.DeletePartialMatch(prometheus.Labels{"cluster": cluster})
	clusterAllocated.DeletePartialMatch(prometheus.Labels{"cluster": cluster})
}
