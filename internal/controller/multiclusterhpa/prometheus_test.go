package multiclusterhpa_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/controller/multiclusterhpa"
	"github.com/meridian-dev/meridian/internal/testenv"
)

func TestPrometheusQuerierReadsOneNumber(t *testing.T) {
	exporter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "# TYPE app_latency_ms gauge\napp_latency_ms{cluster=\"a\"} 120\napp_latency_ms{cluster=\"b\"} 80\n")
	}))
	t.Cleanup(exporter.Close)
	url := testenv.StartPrometheus(t, exporter.URL+"/metrics")
	q := multiclusterhpa.PrometheusQuerier{}
	testenv.Eventually(t, 30*time.Second, "first scrape", func() string {
		if _, err := q.Query(t.Context(), url, "max(app_latency_ms)"); err != nil {
			return err.Error()
		}
		return ""
	})

	tests := []struct {
		name  string
		url   string
		query string
		want  float64
		// wantErr is a substring of the error; empty for none.
		wantErr string
	}{
		{name: "vector of one series", url: url, query: "max(app_latency_ms)", want: 120},
		{name: "scalar", url: url, query: "scalar(sum(app_latency_ms)) / 2", want: 100},
		{name: "several series", url: url, query: "app_latency_ms", wantErr: "yields 2 series; want exactly one: wrap it in sum(...)"},
		{name: "no series", url: url, query: "absent_metric", wantErr: "yields 0 series"},
		{name: "query that does not parse", url: url, query: "sum(", wantErr: "prometheus answered 400: bad_data"},
		{name: "string result", url: url, query: `"text"`, wantErr: "yields a string"},
		{name: "not a URL", url: "prometheus:9090", query: "up", wantErr: "not an http or https base URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := q.Query(t.Context(), tc.url, tc.query)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Query (-want +got):\n%s", diff)
			}
		})
	}
}
