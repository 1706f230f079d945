package policy

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the engine's Prometheus collectors.
type metrics struct {
	evaluations  *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	revision     *prometheus.GaugeVec
	lastLoad     prometheus.Gauge
	loadFailures *prometheus.CounterVec
}

func newMetrics() *metrics {
	return &metrics{
		evaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "meridian_policy_evaluations_total",
			Help: "Policy evaluations by query and outcome (ok, undefined, invalid, error).",
		}, []string{"query", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "meridian_policy_evaluation_duration_seconds",
			Help:    "Time of one policy evaluation, by query.",
			Buckets: prometheus.ExponentialBuckets(10e-6, 2, 14),
		}, []string{"query"}),
		revision: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "meridian_policy_bundle_info",
			Help: "The policy bundle revision evaluated now (value 1) and its source.",
		}, []string{"revision", "source"}),
		lastLoad: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "meridian_policy_bundle_last_load_timestamp_seconds",
			Help: "When the current policy bundle revision was loaded, in Unix seconds.",
		}),
		loadFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "meridian_policy_bundle_load_failures_total",
			Help: "Policy bundles refused, by stage (download, read, verify, compile); the previous revision stays.",
		}, []string{"stage"}),
	}
}

// register registers the collectors with reg; where one is already
// registered (a second engine in one process) the registered one is used.
func (m *metrics) register(reg prometheus.Registerer) error {
	var err error
	if m.evaluations, err = adopt(reg, m.evaluations); err != nil {
		return err
	}
	if m.duration, err = adopt(reg, m.duration); err != nil {
		return err
	}
	if m.revision, err = adopt(reg, m.revision); err != nil {
		return err
	}
	if m.lastLoad, err = adopt(reg, m.lastLoad); err != nil {
		return err
	}
	m.loadFailures, err = adopt(reg, m.loadFailures)
	return err
}

func adopt[T prometheus.Collector](reg prometheus.Registerer, c T) (T, error) {
	err := reg.Register(c)
	if are := (prometheus.AlreadyRegisteredError{}); errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(T); ok {
			return existing, nil
		}
	}
	return c, err
}
