package webhook

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// BenchmarkWebhookLatency measures the CloudVM webhook as the API server
// sees it: AdmissionReviews of distinct VMs POSTed over HTTPS (TLS 1.3,
// kept-alive connections, as the API server keeps them) to the real handler
// with the real policy engine, at a steady 200 admissions per second for
// 10 s (2 s under -short), each sent on schedule whether or not the earlier
// ones have been answered. It reports the latency's p50, p99 and maximum in
// milliseconds and the rate achieved; it asserts nothing about time.
//
//	go test ./internal/webhook/ -run '^$' -bench WebhookLatency -benchtime 1x
func BenchmarkWebhookLatency(b *testing.B) {
	const rate = 200
	length := 10 * time.Second
	if testing.Short() {
		length = 2 * time.Second
	}
	wo := &envtest.WebhookInstallOptions{}
	if err := wo.PrepWithoutInstalling(); err != nil {
		b.Fatalf("failed to make a serving certificate: %v", err)
	}
	b.Cleanup(func() { _ = wo.Cleanup() })
	h := NewCloudVMHandler(scheme.New(), Planner{Policies: testPolicies(b)}, nil)
	serveHTTPS(b, h, wo.LocalServingHost, wo.LocalServingPort, wo.LocalServingCertDir)

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(wo.LocalServingCAData)
	client := &http.Client{
		// The API server gives up on a webhook after its timeoutSeconds
		// (5 s); the benchmark waits longer, to measure even an overloaded
		// machine.
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13},
			MaxIdleConnsPerHost: 64,
		},
	}
	target := url(wo.LocalServingHost, wo.LocalServingPort)
	bodies := make([][]byte, 64)
	for i := range bodies {
		bodies[i] = review("CREATE", fmt.Appendf(nil,
			`{"cpu":"%d","memory":"%dGi","duration":"%dh","originRegion":"westeurope","maxLatency":"%dms","residency":"EU"}`,
			1+i%4, 2+i%8, 1+i%6, 15+i%30))
	}
	send := func(body []byte) (time.Duration, error) {
		start := time.Now()
		resp, err := client.Post(target, "application/json", bytes.NewReader(body))
		if err != nil {
			return time.Since(start), err
		}
		defer resp.Body.Close()
		var out admissionv1.AdmissionReview
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		if out.Response == nil || !out.Response.Allowed {
			return 0, fmt.Errorf("not admitted: %+v", out.Response)
		}
		return time.Since(start), nil
	}
	// Warm up the connections and the engine.
	for i := range 20 {
		if _, err := send(bodies[i%len(bodies)]); err != nil {
			b.Fatal(err)
		}
	}

	b.ResetTimer()
	for b.Loop() {
		cpu := cpuTime(b)
		n := int(length.Seconds() * rate)
		lat := make([]time.Duration, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		tick := time.NewTicker(time.Second / rate)
		begin := time.Now()
		for i := range n {
			if i > 0 {
				<-tick.C
			}
			wg.Go(func() { lat[i], errs[i] = send(bodies[i%len(bodies)]) })
		}
		tick.Stop()
		wg.Wait()
		elapsed := time.Since(begin)
		failed, late := 0, 0
		for i, err := range errs {
			if err != nil {
				if failed++; failed == 1 {
					b.Logf("an admission failed: %v", err)
				}
			}
			// The API server would have failed this one (timeoutSeconds 5).
			if lat[i] > 5*time.Second {
				late++
			}
		}
		sort.Slice(lat, func(a, c int) bool { return lat[a] < lat[c] })
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(lat[n/2]), "p50-ms")
		b.ReportMetric(ms(lat[n*99/100]), "p99-ms")
		b.ReportMetric(ms(lat[n-1]), "max-ms")
		b.ReportMetric(float64(n)/elapsed.Seconds(), "admissions/s")
		// Both ends run in this process: the figure is the CPU an admission
		// costs the client (TLS, JSON) and the webhook together, whatever
		// else the machine is doing.
		b.ReportMetric(ms(cpuTime(b)-cpu)/float64(n), "cpu-ms/admission")
		b.ReportMetric(float64(failed), "failed")
		b.ReportMetric(float64(late), "over-5s")
	}
}

// BenchmarkAdmit measures one CREATE decision in-process (the real policy
// engine, carbon.NoForecast, the rendering check), without HTTP and TLS.
func BenchmarkAdmit(b *testing.B) {
	p := Planner{Policies: testPolicies(b)}
	vm := testVM("bench", func(vm *computev1alpha1.CloudVM) {
		vm.Spec.OriginRegion = "westeurope"
		vm.Spec.MaxLatency = &metav1.Duration{Duration: 30 * time.Millisecond}
		vm.Spec.Residency = computev1alpha1.ResidencyEU
	})
	b.ReportAllocs()
	cpu := cpuTime(b)
	for b.Loop() {
		if _, err := p.Admit(b.Context(), admissionv1.Create, vm, nil, now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time (user and system) the process has used: unlike
// wall time, it does not grow when other processes take the machine.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
