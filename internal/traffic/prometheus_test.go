package traffic

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meridian-dev/meridian/internal/testenv"
)

// defaultQuery is the query template of the sources under test; a 5s range
// holds enough samples at Prometheus's 1s scrape interval for rate to be
// exact once the server has scraped for 5s.
const defaultQuery = `sum by (cluster) (rate(http_requests_total{namespace="{{.Namespace}}",app="{{.Name}}"}[5s]))`

// family is a counter metric that the scrape target exposes: per series
// (its labels in the text format) how fast it grows per second.
type family struct {
	name   string
	series map[string]float64
}

// families is the traffic the tests read back through Prometheus.
var families = []family{
	{name: "http_requests_total", series: map[string]float64{
		`cluster="cluster1",namespace="shop",app="web",pod="web-a"`:   6,
		`cluster="cluster1",namespace="shop",app="web",pod="web-b"`:   4,
		`cluster="cluster2",namespace="shop",app="web",pod="web-c"`:   2.5,
		`cluster="cluster3",namespace="shop",app="cart",pod="cart-a"`: 1,
		`namespace="shop",app="legacy",pod="legacy-a"`:                3,
	}},
	{name: "lb_requests_total", series: map[string]float64{
		`zone="eu-1",service="web"`: 7,
		`zone="us-1",service="web"`: 0.5,
	}},
}

// serveCounters starts an HTTP server on loopback whose /metrics exposes
// families in Prometheus's text format, each counter at its rate times the
// seconds since the server started.
func serveCounters(t *testing.T) *httptest.Server {
	start := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		elapsed := time.Since(start).Seconds()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		for _, f := range families {
			fmt.Fprintf(w, "# TYPE %s counter\n", f.name)
			for labels, perSecond := range f.series {
				fmt.Fprintf(w, "%s{%s} %s\n", f.name, labels, strconv.FormatFloat(perSecond*elapsed, 'f', -1, 64))
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// approx compares traffic within 5% (and 0.05 req/s near zero): rate is
// computed from scrape times that differ from the times the counters were
// read by a little network latency.
var approx = []cmp.Option{cmpopts.EquateApprox(0.05, 0.05), cmpopts.EquateEmpty()}

func TestPrometheusTraffic(t *testing.T) {
	baseURL := testenv.StartPrometheus(t, serveCounters(t).URL+"/metrics")
	endpoint := baseURL + "/api/v1/query"
	p, err := New(Config{URL: baseURL, Query: defaultQuery})
	if err != nil {
		t.Fatal(err)
	}

	web := Workload{Namespace: "shop", Name: "web"}
	wantWeb := map[string]float64{"cluster1": 10, "cluster2": 2.5}
	testenv.Eventually(t, 60*time.Second, "Prometheus reports the traffic the target exposes", func() string {
		got, err := p.Traffic(t.Context(), web)
		if err != nil {
			return err.Error()
		}
		if diff := cmp.Diff(wantWeb, got, approx...); diff != "" {
			return "traffic (-want +got):\n" + diff
		}
		return ""
	})

	tests := []struct {
		name string
		w    Workload
		want map[string]float64
		// wantErr and wantAPIError (an errorType) say which error is
		// expected; wantText lists what its message must contain.
		wantErr      error
		wantAPIError string
		wantText     []string
	}{
		{
			name: "default query, one sum per cluster",
			w:    web,
			want: wantWeb,
		},
		{
			name: "samples of one cluster are summed",
			w:    Workload{Namespace: "shop", Name: "web", Query: `rate(http_requests_total{namespace="{{.Namespace}}",app="{{.Name}}"}[5s])`},
			want: wantWeb,
		},
		{
			name: "another workload",
			w:    Workload{Namespace: "shop", Name: "cart"},
			want: map[string]float64{"cluster3": 1},
		},
		{
			name: "workload without traffic",
			w:    Workload{Namespace: "shop", Name: "idle"},
			want: map[string]float64{},
		},
		{
			name: "per-workload query and cluster label",
			w: Workload{
				Namespace: "shop", Name: "web",
				Query:        `sum by (zone) (rate(lb_requests_total{service="{{.Name}}"}[5s]))`,
				ClusterLabel: "zone",
			},
			want: map[string]float64{"eu-1": 7, "us-1": 0.5},
		},
		{
			name:    "series without the cluster label",
			w:       Workload{Namespace: "shop", Name: "legacy"},
			wantErr: ErrMissingClusterLabel,
			wantText: []string{
				`label "cluster"`, endpoint, "shop/legacy",
				fmt.Sprintf("%q", `sum by (cluster) (rate(http_requests_total{namespace="shop",app="legacy"}[5s]))`),
			},
		},
		{
			name:     "unaggregated series without the cluster label are shown",
			w:        Workload{Namespace: "shop", Name: "legacy", Query: `rate(http_requests_total{app="{{.Name}}"}[5s])`},
			wantErr:  ErrMissingClusterLabel,
			wantText: []string{`label "cluster"`, `app="legacy"`, `pod="legacy-a"`},
		},
		{
			name:         "query that does not parse",
			w:            Workload{Namespace: "shop", Name: "web", Query: `sum(rate(http_requests_total[5s])`},
			wantAPIError: "bad_data",
			wantText:     []string{"400 Bad Request", "parse error", endpoint, fmt.Sprintf("%q", `sum(rate(http_requests_total[5s])`)},
		},
		{
			name:     "scalar result",
			w:        Workload{Namespace: "shop", Name: "web", Query: `1`},
			wantErr:  ErrUnexpectedResultType,
			wantText: []string{`"scalar"`, `want "vector"`},
		},
		{
			name:     "range vector result",
			w:        Workload{Namespace: "shop", Name: "web", Query: `http_requests_total{app="{{.Name}}"}[5s]`},
			wantErr:  ErrUnexpectedResultType,
			wantText: []string{`"matrix"`, `want "vector"`},
		},
		{
			name:     "NaN",
			w:        Workload{Namespace: "shop", Name: "web", Query: `label_replace(vector(NaN), "cluster", "cluster1", "", "")`},
			wantErr:  ErrInvalidValue,
			wantText: []string{"NaN", `cluster="cluster1"`, "finite number >= 0"},
		},
		{
			name:     "infinity",
			w:        Workload{Namespace: "shop", Name: "web", Query: `label_replace(vector(+Inf), "cluster", "cluster1", "", "")`},
			wantErr:  ErrInvalidValue,
			wantText: []string{"+Inf"},
		},
		{
			name:     "negative",
			w:        Workload{Namespace: "shop", Name: "web", Query: `label_replace(vector(-2), "cluster", "cluster1", "", "")`},
			wantErr:  ErrInvalidValue,
			wantText: []string{"-2"},
		},
		{
			name:     "query template that does not run",
			w:        Workload{Namespace: "shop", Name: "web", Query: `rate(x{cluster="{{.Cluster}}"}[5s])`},
			wantErr:  ErrInvalidConfig,
			wantText: []string{"Workload.Query", "shop/web", "Cluster"},
		},
		{
			name:     "cluster label that is not a label name",
			w:        Workload{Namespace: "shop", Name: "web", ClusterLabel: "cluster-name"},
			wantErr:  ErrInvalidConfig,
			wantText: []string{"Workload.ClusterLabel", `"cluster-name"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.Traffic(t.Context(), tc.w)
			checkErr(t, err, tc.wantErr, tc.wantAPIError, tc.wantText)
			if diff := cmp.Diff(tc.want, got, approx...); diff != "" {
				t.Errorf("Traffic(%s) (-want +got):\n%s", tc.w.Key(), diff)
			}
		})
	}
}

// TestPrometheusServerErrors points sources at addresses that answer no
// query API.
func TestPrometheusServerErrors(t *testing.T) {
	baseURL := testenv.StartPrometheus(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name           string
		url            string
		wantStatusCode int
		wantText       []string
	}{
		{
			name:     "nothing listens",
			url:      closed,
			wantText: []string{closed + "/api/v1/query", "shop/web", "connection refused"},
		},
		{
			name:           "path prefix the server does not serve",
			url:            baseURL + "/nope",
			wantStatusCode: http.StatusNotFound,
			wantText:       []string{baseURL + "/nope/api/v1/query", "404 Not Found", `rate(http_requests_total`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(Config{URL: tc.url, Query: defaultQuery})
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Traffic(t.Context(), Workload{Namespace: "shop", Name: "web"})
			if err == nil {
				t.Fatalf("Traffic() = %v, nil; want an error", got)
			}
			var apiErr *APIError
			if errors.As(err, &apiErr) != (tc.wantStatusCode != 0) || (apiErr != nil && apiErr.StatusCode != tc.wantStatusCode) {
				t.Errorf("Traffic() error = %v; want an *APIError with status %d: %t", err, tc.wantStatusCode, tc.wantStatusCode != 0)
			}
			checkText(t, err, tc.wantText)
		})
	}
}

// checkErr fails t unless err is wantErr, or an *APIError of type
// wantAPIError, or nil when both are empty, and says everything in
// wantText.
func checkErr(t *testing.T, err, wantErr error, wantAPIError string, wantText []string) {
	t.Helper()
	var apiErr *APIError
	switch {
	case wantErr == nil && wantAPIError == "":
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	case wantErr != nil && !errors.Is(err, wantErr):
		t.Fatalf("error = %v; want %v", err, wantErr)
	case wantAPIError != "" && (!errors.As(err, &apiErr) || apiErr.ErrorType != wantAPIError):
		t.Fatalf("error = %v; want an *APIError of type %q", err, wantAPIError)
	}
	checkText(t, err, wantText)
}

// checkText fails t unless err's message contains each of want.
func checkText(t *testing.T, err error, want []string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}
