package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/optimizer/eval"
	"github.com/meridian-dev/meridian/internal/testbed"
)

func newTestbedLoadCommand(o *testbedOptions) *cobra.Command {
	var cores float64
	var interval time.Duration
	var once bool
	var app loadApp
	cmd := &cobra.Command{
		Use:   "load NAMESPACE/NAME",
		Short: "Simulate users: spread a CPU load over a MultiClusterDeployment's pods in every member",
		Long: `Spread --cpu cores of load over the running pods of a MultiClusterDeployment in
every member cluster of the testbed, the cloud clusters a CloudProvisioner added
included, as a load balancer would: each pod's kwok.x-k8s.io/usage-cpu
annotation gets its share, and metrics-server reports it, so that a
MultiClusterHorizontalPodAutoscaler sees the utilization a real application
would show. The load is spread again every --interval, as pods come and go,
until interrupted (or once with --once).

With --metrics-addr it also serves, for Prometheus to scrape at /metrics, what
the users see (no container runs, so it is modelled): the load
(meridian_testbed_load_cpu_cores), the running pods sharing it
(meridian_testbed_load_pods), each one's share
(meridian_testbed_load_pod_cpu_cores) and the users' mean latency
(meridian_testbed_load_latency_ms). The latency is an M/M/c queue's: each pod
serves one request at a time, a request takes --service-time on average
(exponential) and a pod serves --pod-cpu cores of load at full utilization,
so the load is --cpu/--pod-cpu pods' worth of requests; it is capped at
--timeout, which is also the latency with no pod running. PUT /load with a
number of cores in the body changes the load while it runs. These are the
metrics a MultiClusterHorizontalPodAutoscaler's optimizer mode queries.`,
		Example: `  meridian testbed load vid/web --cpu 3.4
  meridian testbed load vid/web --cpu 1.4 --once
  meridian testbed load web/frontend --cpu 4 --metrics-addr 127.0.0.1:9464
  curl -X PUT --data 6 127.0.0.1:9464/load`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ns, name, ok := strings.Cut(args[0], "/")
			if !ok || ns == "" || name == "" {
				return fmt.Errorf("argument %q: want NAMESPACE/NAME of a MultiClusterDeployment", args[0])
			}
			if cores < 0 || math.IsNaN(cores) || math.IsInf(cores, 0) {
				return fmt.Errorf("--cpu %g: must be zero or more cores", cores)
			}
			if interval <= 0 {
				return fmt.Errorf("--interval %s: must be positive", interval)
			}
			if err := app.validate(); err != nil {
				return err
			}
			dir, err := o.resolveDir()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			l := &testbed.Load{Dir: dir, Namespace: ns, Name: name}
			app.load = l
			app.set(cores)
			if app.addr != "" {
				addr, err := app.serve(ctx, ns, name)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "serving the users' metrics on http://%s/metrics\n", addr)
			}
			var last string
			for {
				s, err := l.Apply(ctx)
				if err != nil && ctx.Err() == nil {
					return err
				}
				app.spread(s)
				if line := s.String(); line != last {
					fmt.Fprintf(cmd.OutOrStdout(), "%s  %.2f CPU over %s\n", time.Now().Format(time.TimeOnly), app.cores(), line)
					last = line
				}
				if once {
					return nil
				}
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(interval):
				}
			}
		},
	}
	cmd.Flags().Float64Var(&cores, "cpu", 1, "CPU cores of load to spread")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "time between two spreads")
	cmd.Flags().BoolVar(&once, "once", false, "spread once and exit")
	cmd.Flags().StringVar(&app.addr, "metrics-addr", "", "serve the users' metrics for Prometheus on this address (host:port; :0 picks a port), none when empty")
	cmd.Flags().Float64Var(&app.podCPU, "pod-cpu", 1, "cores of load one pod serves at full utilization (latency model)")
	cmd.Flags().DurationVar(&app.serviceTime, "service-time", 100*time.Millisecond, "mean time a pod takes to serve one request (latency model)")
	cmd.Flags().DurationVar(&app.timeout, "timeout", 2*time.Second, "latency of an overloaded application, whose requests time out (latency model)")
	return cmd
}

// loadApp is the application the users of 'meridian testbed load' see:
// the load, how it is spread, and the latency an M/M/c queue gives it.
type loadApp struct {
	addr        string
	podCPU      float64
	serviceTime time.Duration
	timeout     time.Duration
	load        *testbed.Load

	mu     sync.Mutex
	milli  float64
	pods   int
	perPod float64
}

func (a *loadApp) validate() error {
	switch {
	case !(a.podCPU > 0) || math.IsInf(a.podCPU, 0):
		return fmt.Errorf("--pod-cpu %g: must be a positive number of cores", a.podCPU)
	case a.serviceTime <= 0:
		return fmt.Errorf("--service-time %s: must be positive", a.serviceTime)
	case a.timeout < a.serviceTime:
		return fmt.Errorf("--timeout %s: must be at least --service-time (%s)", a.timeout, a.serviceTime)
	}
	return nil
}

// set changes the load, in cores, from the next spread on.
func (a *loadApp) set(cores float64) {
	a.mu.Lock()
	a.milli = cores * 1000
	a.mu.Unlock()
	a.load.Set(cores)
}

func (a *loadApp) cores() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.milli / 1000
}

// spread records what one spread did.
func (a *loadApp) spread(s testbed.Spread) {
	a.mu.Lock()
	a.pods, a.perPod = s.Pods, float64(s.PerPod)/1000
	a.mu.Unlock()
}

// latencyMs is the users' mean latency: M/M/c with c the running pods.
func (a *loadApp) latencyMs() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := eval.App{ServiceRate: 1 / a.serviceTime.Seconds(), Timeout: a.timeout.Seconds()}
	lambda := a.milli / 1000 / a.podCPU * q.ServiceRate
	if a.pods == 0 {
		return 1000 * q.Timeout
	}
	return q.MeanLatency(lambda, a.pods)
}

// serve serves /metrics and PUT /load on a.addr until ctx ends and returns
// the address it listens on.
func (a *loadApp) serve(ctx context.Context, ns, name string) (string, error) {
	labels := prometheus.Labels{"namespace": ns, "name": name}
	reg := prometheus.NewRegistry()
	gauge := func(metric, help string, v func() float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: metric, Help: help, ConstLabels: labels}, v))
	}
	gauge("meridian_testbed_load_cpu_cores", "CPU cores of load the users ask of the MultiClusterDeployment.", a.cores)
	gauge("meridian_testbed_load_pods", "Running pods the load was last spread over.", func() float64 {
		a.mu.Lock()
		defer a.mu.Unlock()
		return float64(a.pods)
	})
	gauge("meridian_testbed_load_pod_cpu_cores", "CPU cores of load each running pod got at the last spread.", func() float64 {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.perPod
	})
	gauge("meridian_testbed_load_latency_ms", "Users' mean latency, milliseconds, of an M/M/c queue over the running pods (capped at the timeout).", a.latencyMs)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("PUT /load", a.putLoad)
	ln, err := net.Listen("tcp", a.addr)
	if err != nil {
		return "", fmt.Errorf("invalid --metrics-addr %q: %w", a.addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "metrics server: %v\n", err)
		}
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return ln.Addr().String(), nil
}

// putLoad sets the load to the cores in the body.
func (a *loadApp) putLoad(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64))
	if err != nil {
		http.Error(w, "failed to read the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	cores, err := strconv.ParseFloat(strings.TrimSpace(string(body)), 64)
	if err != nil || cores < 0 || math.IsInf(cores, 0) || math.IsNaN(cores) {
		http.Error(w, fmt.Sprintf("body %q: want the load in CPU cores, a number 0 or more such as 2.5", body), http.StatusBadRequest)
		return
	}
	a.set(cores)
	fmt.Fprintf(w, "load set to %g CPU cores\n", cores)
}
