package cli

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meridian-dev/meridian/internal/optimizer/eval"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// TestLoadAppMetrics serves the users' metrics of 'meridian testbed load'
// over HTTP and changes the load with PUT /load.
func TestLoadAppMetrics(t *testing.T) {
	app := &loadApp{addr: "127.0.0.1:0", podCPU: 0.5, serviceTime: 100 * time.Millisecond, timeout: 2 * time.Second, load: &testbed.Load{}}
	if err := app.validate(); err != nil {
		t.Fatal(err)
	}
	app.set(3)
	addr, err := app.serve(t.Context(), "web", "frontend")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	metrics := func() map[string]float64 {
		t.Helper()
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		out := map[string]float64{}
		line := regexp.MustCompile(`(?m)^(meridian_testbed_load_\w+)\{name="frontend",namespace="web"\} (\S+)$`)
		for _, m := range line.FindAllStringSubmatch(string(body), -1) {
			out[m[1]], _ = strconv.ParseFloat(m[2], 64)
		}
		return out
	}
	put := func(body string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, base+"/load", strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// 3 cores at 0.5 a pod are 6 pods' worth of 10 requests/s each.
	q := eval.App{ServiceRate: 10, Timeout: 2}
	for _, tc := range []struct {
		name   string
		put    string
		status int
		spread testbed.Spread
		want   map[string]float64
	}{
		{name: "no pod running: the timeout", spread: testbed.Spread{}, want: map[string]float64{
			"meridian_testbed_load_cpu_cores": 3, "meridian_testbed_load_pods": 0, "meridian_testbed_load_pod_cpu_cores": 0, "meridian_testbed_load_latency_ms": 2000,
		}},
		{name: "eight pods", spread: testbed.Spread{Pods: 8, PerPod: 375}, want: map[string]float64{
			"meridian_testbed_load_cpu_cores": 3, "meridian_testbed_load_pods": 8, "meridian_testbed_load_pod_cpu_cores": 0.375, "meridian_testbed_load_latency_ms": q.MeanLatency(60, 8),
		}},
		{name: "load changed", put: "4.5", status: http.StatusOK, spread: testbed.Spread{Pods: 10, PerPod: 450}, want: map[string]float64{
			"meridian_testbed_load_cpu_cores": 4.5, "meridian_testbed_load_pods": 10, "meridian_testbed_load_pod_cpu_cores": 0.45, "meridian_testbed_load_latency_ms": q.MeanLatency(90, 10),
		}},
		{name: "bad load refused, nothing changed", put: "-1", status: http.StatusBadRequest, spread: testbed.Spread{Pods: 10, PerPod: 450}, want: map[string]float64{
			"meridian_testbed_load_cpu_cores": 4.5, "meridian_testbed_load_pods": 10, "meridian_testbed_load_pod_cpu_cores": 0.45, "meridian_testbed_load_latency_ms": q.MeanLatency(90, 10),
		}},
		{name: "not a number", put: "lots", status: http.StatusBadRequest, spread: testbed.Spread{Pods: 10, PerPod: 450}, want: map[string]float64{
			"meridian_testbed_load_cpu_cores": 4.5, "meridian_testbed_load_pods": 10, "meridian_testbed_load_pod_cpu_cores": 0.45, "meridian_testbed_load_latency_ms": q.MeanLatency(90, 10),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.put != "" {
				if got := put(tc.put); got != tc.status {
					t.Fatalf("PUT /load %q: status %d, want %d", tc.put, got, tc.status)
				}
			}
			app.spread(tc.spread)
			if diff := cmp.Diff(tc.want, metrics(), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTestbedLoadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{name: "pod cpu", args: []string{"--pod-cpu", "0"}, want: "--pod-cpu 0: must be a positive number of cores"},
		{name: "service time", args: []string{"--service-time", "0s"}, want: "--service-time 0s: must be positive"},
		{name: "timeout", args: []string{"--timeout", "50ms"}, want: "--timeout 50ms: must be at least --service-time (100ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, append([]string{"testbed", "load", "web/frontend", "--dir", t.TempDir()}, tc.args...)...)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
