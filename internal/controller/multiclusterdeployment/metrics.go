package multiclusterdeployment

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Placement outcomes, the values of the outcome label.
const (
	outcomePlaced  = "placed"
	outcomePartial = "partial"
	outcomeNone    = "none"
	outcomeInvalid = "invalid"
	outcomeError   = "error"
)

var (
	decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "meridian_placement_decisions_total",
		Help: "Placement decisions of MultiClusterDeployments by policy and outcome (placed, partial, none, invalid, error).",
	}, []string{"policy", "outcome"})
	decisionSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "meridian_placement_decision_duration_seconds",
		Help:    "Time the placement framework took for one decision, by policy.",
		Buckets: prometheus.ExponentialBuckets(1e-6, 4, 12),
	}, []string{"policy"})
	movedBack = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "meridian_replicas_moved_back_total",
		Help: "Replicas of a MultiClusterDeployment the re-scheduler brought back to its preferred clusters.",
	}, []string{"namespace", "name"})
	trafficReadings = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "meridian_traffic_readings_total",
		Help: "Traffic readings of TrafficAware MultiClusterDeployments by outcome (ok, error).",
	}, []string{"outcome"})
	unplaced = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "meridian_workload_unplaced_replicas",
		Help: "Replicas of a MultiClusterDeployment that fit no cluster at its last decision.",
	}, []string{"namespace", "name"})
)

func init() {
	metrics.Registry.MustRegister(decisions, decisionSeconds, unplaced, movedBack, trafficReadings)
}
