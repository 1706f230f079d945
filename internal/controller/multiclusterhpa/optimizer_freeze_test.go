package multiclusterhpa_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/optimizer"
	"github.com/meridian-dev/meridian/internal/optimizer/advisor"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// knowledgeBase is 200 samples of webApp: blocks of ten intervals at one
// load (40 to 130 requests/s) while the replicas move between 3 and 14.
func knowledgeBase(app *webApp) advisor.KnowledgeBase {
	kb := advisor.KnowledgeBase{Inputs: []string{"AVG_RR", "SUM_RR"}, Target: "AVG_LAT"}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 200 {
		load := float64(40 + 10*((i/10)%10))
		n := 3 + (i*7)%12
		kb.Samples = append(kb.Samples, optimizer.Sample{
			Time: t0.Add(time.Duration(i) * time.Second), Replicas: n,
			Inputs: []float64{load / float64(n), load}, Target: 40 + 12*load/float64(n),
		})
	}
	return kb
}

// TestOptimizerFreezeHoldsAcrossRestart: the advice freeze interval's clock
// survives a restart of the controller. An optimizer in production from a
// stored knowledge base scales once at 60 requests/s; the controller
// restarts and the load doubles, and the count stays frozen (the new
// optimizer resumes from status.lastScaleTime) although the advice wants
// more replicas; a restarted controller that forgot the clock would scale
// at its first advice.
func TestOptimizerFreezeHoldsAcrossRestart(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	mgmt := env.Management.Client
	if err := mgmt.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "freeze"}}); err != nil {
		t.Fatal(err)
	}
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: "frontend", Namespace: "freeze"}}
	mcd.Spec.Replicas = ptr.To[int32](4)
	mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "frontend"}}
	mcd.Spec.Template.Labels = map[string]string{"app": "frontend"}
	mcd.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10"}}
	if err := mgmt.Create(t.Context(), mcd); err != nil {
		t.Fatal(err)
	}
	app := &webApp{replicas: func() int32 {
		got := &multiclusterv1alpha1.MultiClusterDeployment{}
		if err := mgmt.Get(t.Context(), client.ObjectKeyFromObject(mcd), got); err != nil {
			return 1
		}
		return ptr.Deref(got.Spec.Replicas, 1)
	}}
	app.load.Store(60)
	exporter := httptest.NewServer(app)
	t.Cleanup(exporter.Close)
	prometheus := testenv.StartPrometheus(t, exporter.URL+"/metrics")

	hpa := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "frontend", Namespace: "freeze"}}
	hpa.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "multicluster.meridian.dev/v1alpha1", Kind: "MultiClusterDeployment", Name: "frontend"}
	hpa.Spec.MinReplicas = ptr.To[int32](2)
	hpa.Spec.MaxReplicas = 20
	hpa.Spec.Optimizer = &multiclusterv1alpha1.OptimizerSpec{
		PrometheusURL: prometheus,
		Inputs: []multiclusterv1alpha1.OptimizerQuery{
			{Name: "AVG_RR", Query: "sum(app_requests_per_replica)"},
			{Name: "SUM_RR", Query: "sum(app_requests_per_second)"},
		},
		Target: multiclusterv1alpha1.OptimizerTarget{
			OptimizerQuery: multiclusterv1alpha1.OptimizerQuery{Name: "AVG_LAT", Query: "max(app_latency_ms)"},
			MinThreshold:   resource.MustParse("100"), MaxThreshold: resource.MustParse("160"),
		},
		AdviceFreezeInterval: &metav1.Duration{Duration: time.Hour},
	}
	if err := mgmt.Create(t.Context(), hpa); err != nil {
		t.Fatal(err)
	}
	// The knowledge base the controller finds, owned by the autoscaler as
	// the controller writes it.
	data, err := json.Marshal(knowledgeBase(app))
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "frontend-optimizer-kb", Namespace: "freeze"}, Data: map[string]string{"knowledge-base.json": string(data)}}
	if err := mgmt.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	start := func() *testenv.Manager {
		return env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
			_, err := controller.Setup(mgr, controller.Options{AutoscaleInterval: time.Second})
			return err
		})
	}
	mgr := start()

	// In production from the stored samples, the first advice scales at
	// once: nothing was advised before.
	var scaled int32
	testenv.Eventually(t, 2*time.Minute, "scaled by the first advice", func() string {
		got := get(t, mgmt, hpa)
		o := got.Status.Optimizer
		switch {
		case o == nil || o.Phase != multiclusterv1alpha1.OptimizerPhaseProduction:
			return fmt.Sprintf("optimizer %+v", o)
		case got.Status.LastScaleTime == nil || !strings.Contains(got.Status.LastScaleReason, ": Optimizer: "):
			return fmt.Sprintf("last scaled at %v: %q", got.Status.LastScaleTime, got.Status.LastScaleReason)
		}
		scaled = replicas(t, mgmt, mcd)
		return ""
	})
	if l := app.latency(scaled); l < 100 || l > 160 {
		t.Fatalf("first advice: %d replicas, latency %.1f ms outside [100, 160]", scaled, l)
	}

	// Restarted with twice the load: the advice wants more replicas, and
	// the count is frozen for the hour since the last scaling.
	mgr.Stop()
	before := get(t, mgmt, hpa).Status.Optimizer.Samples
	app.load.Store(120)
	mgr = start()
	testenv.Eventually(t, time.Minute, "advice frozen after the restart", func() string {
		o := get(t, mgmt, hpa).Status.Optimizer
		switch {
		case o.Samples < before+5:
			return fmt.Sprintf("%d samples, want 5 after the restart's %d", o.Samples, before)
		case o.LastAdvice == nil || !strings.HasPrefix(o.LastAdvice.Reason, fmt.Sprintf("frozen at %d until ", scaled)):
			return fmt.Sprintf("last advice %+v, want frozen at %d", o.LastAdvice, scaled)
		}
		return ""
	})
	if n := replicas(t, mgmt, mcd); n != scaled {
		t.Errorf("replicas %d after the restart, want %d frozen (reason %q)", n, scaled, get(t, mgmt, hpa).Status.LastScaleReason)
	}
	mgr.Stop()
}
