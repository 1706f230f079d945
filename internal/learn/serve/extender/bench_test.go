package extender_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/nodeenv"
	"github.com/meridian-dev/meridian/internal/learn/serve"
	"github.com/meridian-dev/meridian/internal/learn/serve/extender"
	"github.com/meridian-dev/meridian/internal/traffic"
)

// BenchmarkPrioritize measures one prioritize call of kube-scheduler
// through HTTP, JSON both ways included, at 1,000 and 5,000 nodes (the
// request names every node, as after filtering a pod that fits anywhere;
// every node runs 10 pods). It reports pods/s, one pod at a time as
// kube-scheduler calls an extender. Latencies come from the in-memory
// source, as they would from Metrics' last Prometheus read.
func BenchmarkPrioritize(b *testing.B) {
	model, err := learn.NewModel(learn.DefaultHidden, 7)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			cache := extender.NewCache()
			latency := &traffic.Static{}
			lat := map[string]float64{}
			names := make([]string, n)
			for i := range n {
				s := nodeSpec{name: fmt.Sprintf("node-%05d", i), cpu: "32", mem: "128Gi", typ: nodeenv.NodeTypes[i%3].Name}
				names[i] = s.name
				cache.SetNode(node(s))
				lat[s.name] = float64(5 + i%40)
				for j := range 10 {
					p := pod(fmt.Sprintf("p-%d-%d", i, j), s.name, "500m", "1Gi", nil)
					p.UID = types.UID(p.Name)
					cache.SetPod(p)
				}
			}
			latency.Set(serve.SourceWorkload, lat)
			metrics := serve.NewMetricsFrom(serve.Sources{Latency: latency}, 0)
			if err := metrics.Refresh(b.Context()); err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(extender.New(model, cache, metrics).Handler())
			defer srv.Close()
			p := pod("web", "", "1", "2Gi", map[string]string{serve.AnnotationSoftLatency: "20", serve.AnnotationHardLatency: "30"})
			args := &extenderv1.ExtenderArgs{Pod: p, NodeNames: &names}
			client := srv.Client()
			b.ResetTimer()
			for b.Loop() {
				// kube-scheduler encodes the request for every pod.
				body, err := json.Marshal(args)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := client.Post(srv.URL+extender.PathPrioritize, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				var list extenderv1.HostPriorityList
				err = json.NewDecoder(resp.Body).Decode(&list)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || len(list) != n {
					b.Fatalf("answer %s, %d hosts, %v", resp.Status, len(list), err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}
