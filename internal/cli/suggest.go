package cli

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/learn/serve"
	"github.com/meridian-dev/meridian/internal/learn/serve/extender"
)

type suggestOptions struct {
	addr, model          string
	kubeconfig, context  string
	metrics              serve.MetricsConfig
	idleQuery, peakQuery string
}

func newSuggestCommand() *cobra.Command {
	o := &suggestOptions{}
	cmd := &cobra.Command{
		Use:   "suggest",
		Short: "Serve the learned node scorer as a kube-scheduler extender (filter, prioritize; node-cache-capable)",
		Long: `Serve a model written by 'meridian learn train' to a kube-scheduler that
cannot be replaced, through the scheduler extender API
(k8s.io/kube-scheduler/extender/v1): POST /prioritize scores the nodes of a
request from 0 to 10, the best feasible node 10; POST /filter removes the
nodes beyond the pod's hard latency limit (annotation
learn.meridian.dev/hard-latency-ms). The extender is node-cache-capable: it
keeps its own cache of the cluster's nodes and bound pods (informers), and
reads each node's latency to the users from Prometheus (--latency-query,
one sample per node, labelled --node-label), every --refresh.

In the KubeSchedulerConfiguration:

  extenders:
  - urlPrefix: http://127.0.0.1:8090
    filterVerb: filter
    prioritizeVerb: prioritize
    weight: 10
    nodeCacheCapable: true
    ignorable: true

See docs/learn.md, "Serving".`,
		Example: `  meridian suggest --model EL-RL.json --prometheus http://127.0.0.1:9090 --kubeconfig member.kubeconfig`,
		Args:    cobra.NoArgs,
		RunE:    o.run,
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8090", "address to listen on")
	f.StringVar(&o.model, "model", "", "model file written by 'meridian learn train' (required)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default: $KUBECONFIG, ~/.kube/config or in-cluster)")
	f.StringVar(&o.context, "context", "", "kubeconfig context of the cluster")
	f.StringVar(&o.metrics.URL, "prometheus", "", "base URL of the Prometheus holding the nodes' latencies (required)")
	f.StringVar(&o.metrics.LatencyQuery, "latency-query", serve.DefaultLatencyQuery, "PromQL query: each node's latency to its users in ms")
	f.StringVar(&o.metrics.NodeLabel, "node-label", serve.DefaultNodeLabel, "label naming a sample's node")
	f.StringVar(&o.idleQuery, "idle-watts-query", "", "PromQL query: each node's idle watts (with --peak-watts-query; default: node annotations or instance type)")
	f.StringVar(&o.peakQuery, "peak-watts-query", "", "PromQL query: each node's peak watts")
	f.DurationVar(&o.metrics.Refresh, "refresh", serve.DefaultRefresh, "how often Prometheus is read")
	return cmd
}

func (o *suggestOptions) run(cmd *cobra.Command, _ []string) error {
	if o.model == "" {
		return errors.New("--model is required: a model file written by 'meridian learn train'")
	}
	if o.metrics.URL == "" {
		return errors.New("--prometheus is required: the base URL of the Prometheus holding the nodes' latencies, as in http://127.0.0.1:9090")
	}
	m, err := learn.Load(o.model)
	if err != nil {
		return fmt.Errorf("invalid --model %q: %w", o.model, err)
	}
	o.metrics.IdleWattsQuery, o.metrics.PeakWattsQuery = o.idleQuery, o.peakQuery
	metrics, err := serve.NewMetrics(o.metrics)
	if err != nil {
		return err
	}
	cfg, err := loadKubeconfig(o.kubeconfig, o.context)
	if err != nil {
		return fmt.Errorf("failed to load the cluster's kubeconfig: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("failed to build a client for %s: %w", cfg.Host, err)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("invalid --addr %q: %w", o.addr, err)
	}
	defer ln.Close()

	ctx := cmd.Context()
	errOut := cmd.ErrOrStderr()
	if err := metrics.Refresh(ctx); err != nil {
		fmt.Fprintf(errOut, "suggest: %v (nodes count as %g ms away until Prometheus answers)\n", err, serve.UnknownLatencyMs)
	}
	go metrics.Run(ctx, func(err error) { fmt.Fprintf(errOut, "suggest: %v\n", err) })
	cache := extender.NewCache()
	if err := cache.Watch(ctx, client); err != nil {
		return fmt.Errorf("failed to watch the nodes and pods of %s: %w", cfg.Host, err)
	}
	measured, _, _ := metrics.Status()
	fmt.Fprintf(errOut, "suggest: serving on http://%s (model %s, reward %s; %d nodes cached, %d measured)\n",
		ln.Addr(), o.model, m.Reward, cache.Len(), measured)

	srv := &http.Server{Handler: extender.New(m, cache, metrics).Handler(), ReadHeaderTimeout: 10 * time.Second}
	return serveUntilDone(ctx, srv, ln)
}
