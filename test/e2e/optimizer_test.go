package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cli"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterhpa"
	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// The band of the test's latency, ms. The application of 'meridian
// testbed load' serves 10 requests/s per pod (100 ms each, one core per
// pod): at 3 cores of load 4 pods give 151 ms and 5 give 112, at 6 cores 7
// give 161 and 8 give 118, and one fewer times out.
const optMinMs, optMaxMs = 110, 200

// TestOptimizerScalesByTheAdviceOnTheTestbed runs the MC-HPA's optimizer
// mode on the testbed: 'meridian testbed load' spreads a load over the
// MultiClusterDeployment's running pods in two members and serves the
// users' metrics, a real Prometheus scrapes them, and the controller
// evaluates the m_opt_* queries against it every interval. With no CPU
// target the optimizer explores while the load moves between 3 and 6
// cores, enters production by its held-out error, and then scales the
// MultiClusterDeployment by its advice into the band when the load drops
// to 3 cores and when it rises to 6.
func TestOptimizerScalesByTheAdviceOnTheTestbed(t *testing.T) {
	begin := time.Now()
	w := startWith(t, testbed.Uniform(testbed.UniformOptions{Clusters: 2, Nodes: 2}), func(string) controller.Options {
		return controller.Options{HeartbeatInterval: 2 * time.Second, HeartbeatTimeout: 2 * time.Second, PendingGrace: 5 * time.Second,
			AutoscaleInterval: 3 * time.Second}
	})
	ctx := t.Context()
	w.namespace(t, "opt")
	labels := map[string]string{"app": "web"}
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "opt", Name: "web"}}
	mcd.Spec.Replicas = ptr.To[int32](5)
	mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
	mcd.Spec.Template.Labels = labels
	mcd.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
	}}}
	if err := w.mgmt.Create(ctx, mcd); err != nil {
		t.Fatal(err)
	}

	load := startLoad(t, w.dir, "opt/web", 4)
	prometheus := testenv.StartPrometheus(t, load+"/metrics")
	series := `{namespace="opt",name="web"}`
	hpa := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "opt", Name: "web"}}
	hpa.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: multiclusterv1alpha1.GroupVersion.String(), Kind: "MultiClusterDeployment", Name: "web"}
	hpa.Spec.MinReplicas = ptr.To[int32](2)
	hpa.Spec.MaxReplicas = 12
	hpa.Spec.Optimizer = &multiclusterv1alpha1.OptimizerSpec{
		PrometheusURL: prometheus,
		Inputs: []multiclusterv1alpha1.OptimizerQuery{
			{Name: "AVG_RR", Query: "sum(meridian_testbed_load_pod_cpu_cores" + series + ")"},
			{Name: "SUM_RR", Query: "sum(meridian_testbed_load_cpu_cores" + series + ")"},
		},
		Target: multiclusterv1alpha1.OptimizerTarget{
			OptimizerQuery: multiclusterv1alpha1.OptimizerQuery{Name: "AVG_LAT", Query: "max(meridian_testbed_load_latency_ms" + series + ")"},
			MinThreshold:   *resource.NewQuantity(optMinMs, resource.DecimalSI), MaxThreshold: *resource.NewQuantity(optMaxMs, resource.DecimalSI),
		},
		TrainingSamplesRequired: ptr.To[int32](20),
	}
	if err := w.mgmt.Create(ctx, hpa); err != nil {
		t.Fatal(err)
	}

	// Training: the optimizer explores (no CPU target) while the load
	// moves every five samples.
	loads := []float64{4, 3, 5, 6, 3.5, 5.5}
	set := -1.0
	var samples int32
	w.waitFor(t, 5*time.Minute, "optimizer in production", func() string {
		got := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{}
		if err := w.mgmt.Get(ctx, client.ObjectKeyFromObject(hpa), got); err != nil {
			return err.Error()
		}
		o := got.Status.Optimizer
		if o == nil {
			return "no optimizer status yet"
		}
		if l := loads[(o.Samples/5)%int32(len(loads))]; l != set {
			putLoad(t, load, l)
			set = l
		}
		if o.Phase != multiclusterv1alpha1.OptimizerPhaseProduction {
			return fmt.Sprintf("phase %q (%s), %d samples; %s", o.Phase, o.PhaseReason, o.Samples, conditionMessage(got, multiclusterv1alpha1.ConditionOptimizerSampled))
		}
		samples = o.Samples
		return ""
	})
	t.Logf("%6.1fs  optimizer in production after %d samples", time.Since(begin).Seconds(), samples)

	// Production: the replicas follow the advice into the band at 3 cores,
	// then at 6, which needs at least 7 replicas: the optimizer scales up.
	// Each check waits for an advice from a sample taken after Prometheus
	// scraped the new load.
	q := multiclusterhpa.PrometheusQuerier{}
	for _, cores := range []float64{3, 6} {
		putLoad(t, load, cores)
		var seen time.Time
		w.waitFor(t, time.Minute, fmt.Sprintf("Prometheus scrapes a load of %g cores", cores), func() string {
			got, err := q.Query(ctx, prometheus, "sum(meridian_testbed_load_cpu_cores"+series+")")
			if err != nil {
				return err.Error()
			}
			if got != cores {
				return fmt.Sprintf("%g cores", got)
			}
			seen = time.Now()
			return ""
		})
		var latency float64
		var n int32
		w.waitFor(t, 2*time.Minute, fmt.Sprintf("replicas follow the advice at %g cores", cores), func() string {
			got := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{}
			if err := w.mgmt.Get(ctx, client.ObjectKeyFromObject(hpa), got); err != nil {
				return err.Error()
			}
			o := got.Status.Optimizer
			cur := &multiclusterv1alpha1.MultiClusterDeployment{}
			if err := w.mgmt.Get(ctx, client.ObjectKeyFromObject(mcd), cur); err != nil {
				return err.Error()
			}
			n = ptr.Deref(cur.Spec.Replicas, 0)
			pods, err := q.Query(ctx, prometheus, "sum(meridian_testbed_load_pods"+series+")")
			if err != nil {
				return err.Error()
			}
			if latency, err = q.Query(ctx, prometheus, hpa.Spec.Optimizer.Target.Query); err != nil {
				return err.Error()
			}
			switch {
			case o.LastAdvice == nil || !o.LastAdvice.Time.After(seen.Add(time.Second)):
				return fmt.Sprintf("no advice since the load changed at %s", seen.Format(time.TimeOnly))
			case o.Phase != multiclusterv1alpha1.OptimizerPhaseProduction || !o.LastAdvice.Valid:
				return fmt.Sprintf("optimizer %s (%s), advice %+v", o.Phase, o.PhaseReason, o.LastAdvice)
			case o.LastAdvice.Replicas != n:
				return fmt.Sprintf("%d replicas, advice %d (%s)", n, o.LastAdvice.Replicas, o.LastAdvice.Reason)
			case int32(pods) != n:
				return fmt.Sprintf("%g pods take the load, %d wanted", pods, n)
			case latency < optMinMs || latency > optMaxMs:
				return fmt.Sprintf("latency %.1f ms at %d replicas, outside [%d, %d]", latency, n, optMinMs, optMaxMs)
			case cores == 6 && (got.Status.LastScaleTime == nil || !got.Status.LastScaleTime.After(seen) || !strings.Contains(got.Status.LastScaleReason, ": Optimizer: ")):
				return fmt.Sprintf("not scaled by the advice since the load rose (last at %v: %q)", got.Status.LastScaleTime, got.Status.LastScaleReason)
			}
			return ""
		})
		t.Logf("%6.1fs  %g cores: %d replicas by the advice, latency %.1f ms", time.Since(begin).Seconds(), cores, n, latency)
		if cores == 6 && n < 7 {
			t.Errorf("%d replicas at 6 cores: fewer than the 7 the band needs", n)
		}
	}
}

// startLoad runs 'meridian testbed load' on the testbed in dir, spreading
// cores over target's pods every second and serving the users' metrics,
// until t ends; it returns the metrics server's base URL.
func startLoad(t *testing.T, dir, target string, cores float64) string {
	t.Helper()
	out := &testenv.LockedBuffer{}
	cmd := cli.NewRootCommand()
	cmd.SetArgs([]string{"testbed", "load", target, "--dir", dir, "--cpu", strconv.FormatFloat(cores, 'g', -1, 64),
		"--interval", "1s", "--metrics-addr", "127.0.0.1:0"})
	cmd.SetOut(out)
	cmd.SetErr(out)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("meridian testbed load: %v\n%s", err, out.String())
		}
	})
	serving := regexp.MustCompile(`serving the users' metrics on (http://\S+)/metrics`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m := serving.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("meridian testbed load exited: %v\n%s", err, out.String())
		default:
		}
	}
	t.Fatalf("meridian testbed load serves no metrics after 30s:\n%s", out.String())
	return ""
}

// putLoad changes the load of a running 'meridian testbed load'.
func putLoad(t *testing.T, base string, cores float64) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, base+"/load", strings.NewReader(strconv.FormatFloat(cores, 'g', -1, 64)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("failed to set the load to %g cores: %v", cores, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT /load %g: %s", cores, resp.Status)
	}
}

func conditionMessage(hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler, kind string) string {
	for _, c := range hpa.Status.Conditions {
		if c.Type == kind {
			return fmt.Sprintf("%s %s: %s", kind, c.Status, c.Message)
		}
	}
	return kind + " not set"
}
