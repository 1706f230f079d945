package learned

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/meridian-dev/meridian/internal/learn/serve"
)

// Args are the plugin's arguments in a KubeSchedulerConfiguration
// profile's pluginConfig.
type Args struct {
	// ModelPath is the model file `meridian learn train` wrote.
	ModelPath string `json:"modelPath"`
	// PrometheusURL is the base URL of the Prometheus server holding the
	// nodes' latencies.
	PrometheusURL string `json:"prometheusURL"`
	// LatencyQuery, IdleWattsQuery, PeakWattsQuery and NodeLabel are
	// serve.MetricsConfig's; empty means its defaults.
	LatencyQuery   string `json:"latencyQuery,omitempty"`
	IdleWattsQuery string `json:"idleWattsQuery,omitempty"`
	PeakWattsQuery string `json:"peakWattsQuery,omitempty"`
	NodeLabel      string `json:"nodeLabel,omitempty"`
	// Refresh is how often Prometheus is read; serve.DefaultRefresh when
	// empty.
	Refresh metav1.Duration `json:"refresh,omitempty"`
}

// decodeArgs reads the plugin's arguments and checks the required ones.
func decodeArgs(obj runtime.Object) (Args, error) {
	var a Args
	if err := frameworkruntime.DecodeInto(obj, &a); err != nil {
		return a, fmt.Errorf("failed to decode the %s plugin's args: %w", Name, err)
	}
	if a.ModelPath == "" {
		return a, fmt.Errorf("%s plugin args: modelPath is empty; want the path of a model file written by 'meridian learn train'", Name)
	}
	if a.PrometheusURL == "" {
		return a, fmt.Errorf("%s plugin args: prometheusURL is empty; want the base URL of the Prometheus holding the nodes' latencies, as in http://prometheus:9090", Name)
	}
	return a, nil
}

// metricsConfig is the serve.MetricsConfig the arguments describe.
func (a Args) metricsConfig() serve.MetricsConfig {
	return serve.MetricsConfig{
		URL: a.PrometheusURL, LatencyQuery: a.LatencyQuery, NodeLabel: a.NodeLabel,
		IdleWattsQuery: a.IdleWattsQuery, PeakWattsQuery: a.PeakWattsQuery,
		Refresh: a.Refresh.Duration,
	}
}

// refreshOrDefault is used in messages.
func (a Args) refreshOrDefault() time.Duration {
	if a.Refresh.Duration == 0 {
		return serve.DefaultRefresh
	}
	return a.Refresh.Duration
}
