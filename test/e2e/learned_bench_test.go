package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/meridian-dev/meridian/internal/learn/serve"
	"github.com/meridian-dev/meridian/internal/learn/serve/extender"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// The default profile with the learned plugin added at weight 10, as
// hack/k8s/scheduler/scheduler-config.yaml deploys it.
const throughputPluginConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      filter:
        enabled: [{name: MeridianLearned}]
      preScore:
        enabled: [{name: MeridianLearned}]
      score:
        enabled: [{name: MeridianLearned, weight: 10}]
    pluginConfig:
      - name: MeridianLearned
        args:
          modelPath: %q
          prometheusURL: %q
          refresh: 1s
`

// The default profile with `meridian suggest`'s extender.
const throughputExtenderConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
  - urlPrefix: %q
    filterVerb: filter
    prioritizeVerb: prioritize
    weight: 10
    nodeCacheCapable: true
`

func envInt(b *testing.B, name string, def int) int {
	if s := os.Getenv(name); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("%s=%q: want a positive integer", name, s)
		}
		return v
	}
	return def
}

// BenchmarkSchedulingThroughput measures pods/s of a testbed member's
// kube-scheduler on kwok nodes three ways: the default scheduler, the
// out-of-tree build with the learned plugin, and the default scheduler
// calling `meridian suggest`'s extender (in this process, over HTTP). Each
// run adds a member with MERIDIAN_BENCH_NODES nodes (1,000), stops its
// scheduler, creates MERIDIAN_BENCH_PODS pods (1,000; half with latency
// limits), starts the scheduler again and, from a watch, times the first
// binding to the last: the rate at which the scheduler works through a
// queue, as kube-scheduler's scheduler_perf measures it, not the rate at
// which the API server creates pods. Then it removes the member. Run with
// -benchtime 1x:
//
//	go test ./test/e2e -run XXX -bench SchedulingThroughput -benchtime 1x -timeout 40m
func BenchmarkSchedulingThroughput(b *testing.B) {
	nodes := envInt(b, "MERIDIAN_BENCH_NODES", 1000)
	pods := envInt(b, "MERIDIAN_BENCH_PODS", 1000)
	ctx := b.Context()
	scheduler, model, modelPath := learnedScheduler(b)
	variants := []string{"default", "plugin", "extender"}
	reg := prometheus.NewRegistry()
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "meridian_node_latency_ms", Help: "Latency to the users."}, []string{"node"})
	reg.MustRegister(gauge)
	exporter := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	b.Cleanup(exporter.Close)
	promURL := testenv.StartPrometheus(b, exporter.URL)

	// The extender's handler is set once its member exists.
	var ext atomic.Pointer[http.Handler]
	extSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := ext.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		http.Error(w, "extender not ready", http.StatusServiceUnavailable)
	}))
	b.Cleanup(extSrv.Close)

	dir := filepath.Join(b.TempDir(), "testbed")
	b.Cleanup(func() {
		if _, err := testbed.Down(context.Background(), dir); err != nil {
			b.Errorf("failed to stop the testbed: %v", err)
		}
	})
	if _, err := testbed.Up(ctx, testbed.Options{Name: "e2e-throughput", Dir: dir, BinDir: filepath.Dir(scheduler),
		Profile: testbed.Uniform(testbed.UniformOptions{Clusters: 0})}); err != nil {
		b.Fatalf("failed to start the testbed: %v", err)
	}
	for _, v := range variants {
		b.Run(fmt.Sprintf("%s/nodes=%d/pods=%d", v, nodes, pods), func(b *testing.B) {
			name := "tp-" + v
			spec := testbed.ClusterSpec{Name: name, Timeout: 5 * time.Minute}
			switch v {
			case "plugin":
				spec.SchedulerBinary = scheduler
				spec.SchedulerConfig = fmt.Sprintf(throughputPluginConfig, modelPath, promURL)
			case "extender":
				spec.SchedulerConfig = fmt.Sprintf(throughputExtenderConfig, extSrv.URL)
			}
			member, err := testbed.AddCluster(ctx, dir, spec)
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := testbed.RemoveCluster(context.Background(), dir, name); err != nil {
					b.Errorf("failed to remove %s: %v", name, err)
				}
			}()
			begin := time.Now()
			// A node group holds at most 254 workers.
			for g := 0; g*250 < nodes; g++ {
				size := testbed.NodeSize{CPU: resource.MustParse("32"), Memory: resource.MustParse("128Gi")}
				if _, err := testbed.SetNodeGroup(ctx, dir, name, "g"+strconv.Itoa(g), size, min(250, nodes-g*250), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("%s: %d nodes Ready in %s", name, nodes, time.Since(begin).Round(time.Second))
			cfg := *member.Config
			cfg.QPS, cfg.Burst = 2000, 2000
			cs := kubernetes.NewForConfigOrDie(&cfg)
			list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for i, n := range list.Items {
				gauge.WithLabelValues(n.Name).Set(float64(5 + (i*7)%40))
			}
			metrics, err := serve.NewMetrics(serve.MetricsConfig{URL: promURL, Refresh: time.Second})
			if err != nil {
				b.Fatal(err)
			}
			testenv.Eventually(b, 30*time.Second, "Prometheus serves the latencies", func() string {
				if err := metrics.Refresh(ctx); err != nil {
					return err.Error()
				}
				for _, n := range list.Items {
					if !metrics.Lookup(n.Name).HasLatency {
						return n.Name + " not measured"
					}
				}
				return ""
			})
			if v == "extender" {
				go metrics.Run(ctx, nil)
				cache := extender.NewCache()
				if err := cache.Watch(ctx, cs); err != nil {
					b.Fatal(err)
				}
				h := extender.New(model, cache, metrics).Handler()
				ext.Store(&h)
			}
			// The pods wait for a stopped scheduler, so that the time is
			// the scheduler's and not the API server's.
			if err := testbed.KillComponent(ctx, dir, name, "kube-scheduler"); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			var wg sync.WaitGroup
			errs := make(chan error, pods)
			for w := range 8 {
				wg.Go(func() {
					for i := w; i < pods; i += 8 {
						var annotations map[string]string
						if i%2 == 0 {
							annotations = map[string]string{serve.AnnotationSoftLatency: "20", serve.AnnotationHardLatency: "30"}
						}
						p := learnedPod(fmt.Sprintf("p-%04d", i), "500m", "1Gi", annotations)
						if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			created := time.Since(start)
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			bound := watchBindings(ctx, b, cs, pods)
			b.ResetTimer()
			restart := time.Now()
			if err := testbed.StartExited(ctx, dir, name); err != nil {
				b.Fatal(err)
			}
			var first, last time.Time
			select {
			case times := <-bound:
				for _, t := range times {
					if first.IsZero() || t.Before(first) {
						first = t
					}
					if t.After(last) {
						last = t
					}
				}
			case <-time.After(10 * time.Minute):
				b.Fatalf("not all %d pods bound within 10 minutes of the scheduler's start", pods)
			}
			b.StopTimer()
			rate := float64(pods-1) / last.Sub(first).Seconds()
			b.ReportMetric(rate, "pods/s")
			b.Logf("%s: %d pods created in %s with the scheduler stopped; started again, it bound the first %s later and all %s after the first: %.1f pods/s",
				v, pods, created.Round(time.Millisecond), first.Sub(restart).Round(time.Millisecond), last.Sub(first).Round(time.Millisecond), rate)
		})
	}
}

// watchBindings watches the pods of the default namespace, all created and
// none bound, and sends on the channel it returns when pods of them are
// bound: when each was first seen bound. A watch that ends is started
// again from a list, whose newly bound pods count as bound then.
func watchBindings(ctx context.Context, b *testing.B, cs kubernetes.Interface, pods int) <-chan map[string]time.Time {
	b.Helper()
	list, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if len(list.Items) != pods {
		b.Fatalf("%d pods in the default namespace, want %d", len(list.Items), pods)
	}
	done := make(chan map[string]time.Time, 1)
	go func() {
		times := map[string]time.Time{}
		see := func(p *corev1.Pod) {
			if _, ok := times[p.Name]; !ok && p.Spec.NodeName != "" {
				times[p.Name] = time.Now()
			}
		}
		for i := range list.Items {
			see(&list.Items[i])
		}
		rv := list.ResourceVersion
		for len(times) < pods && ctx.Err() == nil {
			w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			if err == nil {
				for ev := range w.ResultChan() {
					if p, ok := ev.Object.(*corev1.Pod); ok {
						rv = p.ResourceVersion
						see(p)
					}
					if len(times) == pods {
						break
					}
				}
				w.Stop()
			}
			if len(times) < pods {
				l, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				for i := range l.Items {
					see(&l.Items[i])
				}
				rv = l.ResourceVersion
			}
		}
		done <- times
	}()
	return done
}
