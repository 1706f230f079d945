package multiclusterdeployment_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/traffic"
)

// requestCounters serves http_requests_total per cluster in Prometheus's
// text format, each growing at a rate the test sets, as the front ends of a
// web application would.
type requestCounters struct {
	mu    sync.Mutex
	total map[string]float64
	rate  map[string]float64
	since time.Time
}

func (c *requestCounters) advance() {
	now := time.Now()
	for cl, r := range c.rate {
		c.total[cl] += r * now.Sub(c.since).Seconds()
	}
	c.since = now
}

func (c *requestCounters) setRates(rates map[string]float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	c.rate = rates
}

func (c *requestCounters) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintln(w, "# TYPE http_requests_total counter")
	for _, cl := range slices.Sorted(func(yield func(string) bool) {
		for k := range c.total {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(w, "http_requests_total{cluster=%q,namespace=\"shop\",app=\"web\"} %f\n", cl, c.total[cl])
	}
}

// TestTrafficAwarePlacementFollowsLiveTraffic reproduces seed 001's VI-C on
// real API servers and a real Prometheus: the replicas of a TrafficAware
// workload go to the cluster that receives its traffic, and move when the
// traffic does.
func TestTrafficAwarePlacementFollowsLiveTraffic(t *testing.T) {
	counters := &requestCounters{total: map[string]float64{"cluster1": 0, "cluster2": 0, "cluster3": 0}, since: time.Now()}
	counters.setRates(map[string]float64{"cluster1": 2, "cluster2": 40, "cluster3": 1})
	front := httptest.NewServer(counters)
	t.Cleanup(front.Close)
	promURL := testenv.StartPrometheus(t, front.URL)
	src, err := traffic.New(traffic.Config{
		URL:   promURL,
		Query: `sum by (cluster) (rate(http_requests_total{namespace="{{.Namespace}}",app="{{.Name}}"}[1m]))`,
	})
	if err != nil {
		t.Fatal(err)
	}
	h := setupWithOptions(t, harness{traffic: src}, seedLatencies()...)

	// A short rate window, per workload, so that the test need not wait a
	// minute for the traffic to turn.
	d := mcd("web", 2, "500m", multiclusterv1alpha1.Placement{
		Policy:  multiclusterv1alpha1.TrafficAware,
		Traffic: &multiclusterv1alpha1.TrafficSource{Query: `sum by (cluster) (rate(http_requests_total{namespace="{{.Namespace}}",app="{{.Name}}"}[5s]))`},
	})
	d.Spec.Replicas = ptr.To(int32(2))
	h.create(t, d)
	h.waitFor(t, "web", map[string]int32{"cluster2": 2})
	eventually(t, "the traffic reported", func() string {
		c := meta.FindStatusCondition(h.get(t, "web").Status.Conditions, multiclusterv1alpha1.ConditionTrafficRead)
		if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "cluster2=") {
			return fmt.Sprintf("TrafficRead condition %+v; want True with the traffic per cluster", c)
		}
		return ""
	})

	// The users move to cluster3: so do the replicas.
	counters.setRates(map[string]float64{"cluster1": 2, "cluster2": 0, "cluster3": 50})
	h.waitFor(t, "web", map[string]int32{"cluster3": 2})

	// A broken query keeps the last good reading and says so.
	patch := []byte(`{"spec":{"placement":{"traffic":{"query":"sum by (cluster) (rate(http_requests_total[5s]"}}}}`)
	if err := h.mgmt.Patch(t.Context(), h.get(t, "web"), client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the broken query reported", func() string {
		c := meta.FindStatusCondition(h.get(t, "web").Status.Conditions, multiclusterv1alpha1.ConditionTrafficRead)
		if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "parse error") || !strings.Contains(c.Message, "the last good reading stands") {
			return fmt.Sprintf("TrafficRead %+v", c)
		}
		return ""
	})
	if diff := h.memberReplicas(t, "web"); diff["cluster3"] != 2 || len(diff) != 1 {
		t.Fatalf("replicas moved on a failed reading: %v", diff)
	}
}
