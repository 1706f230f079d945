package multiclusterhpa_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/testenv"
)

func TestScalesOnMemberMetricsAndWaitsWhenTheyAreMissing(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	mgmt, member := env.Management.Client, env.Members[0].Client
	installPodMetricsAPI(t, member)
	for _, ns := range []string{"meridian-system", "web"} {
		if err := mgmt.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := member.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "web"}}); err != nil {
		t.Fatal(err)
	}
	if err := mgmt.Create(t.Context(), env.Members[0].KubeconfigSecret("meridian-system", "cluster1")); err != nil {
		t.Fatal(err)
	}
	cl := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "cluster1"}}
	cl.Spec.KubeconfigSecretRef.Name = "cluster1"
	if err := mgmt.Create(t.Context(), cl); err != nil {
		t.Fatal(err)
	}
	env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{HeartbeatInterval: 500 * time.Millisecond, AutoscaleInterval: 300 * time.Millisecond})
		return err
	})

	// A backend of 2 replicas, each asking for 500m. The member has no
	// controllers; the test plays kubelet and metrics-server.
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: "backend", Namespace: "web"}}
	mcd.Spec.Replicas = ptr.To[int32](2)
	mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "backend"}}
	mcd.Spec.Template.Labels = map[string]string{"app": "backend"}
	mcd.Spec.Template.Spec.Containers = []corev1.Container{{Name: "php", Image: "registry.k8s.io/hpa-example",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}
	if err := mgmt.Create(t.Context(), mcd); err != nil {
		t.Fatal(err)
	}
	labels := propagation.OwnerOfDeployment(mcd).Labels()
	labels["app"] = "backend"
	for i := range 2 {
		runPod(t, member, fmt.Sprintf("backend-%d", i), labels)
	}

	hpa := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "backend", Namespace: "web"}}
	hpa.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "multicluster.meridian.dev/v1alpha1", Kind: "MultiClusterDeployment", Name: "backend"}
	hpa.Spec.MinReplicas = ptr.To[int32](2)
	hpa.Spec.MaxReplicas = 10
	hpa.Spec.ScaleDownCooldown = &metav1.Duration{Duration: time.Hour}
	hpa.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)},
	}}}
	if err := mgmt.Create(t.Context(), hpa); err != nil {
		t.Fatal(err)
	}

	// No metrics yet: a condition says so and the replicas stay.
	testenv.Eventually(t, 30*time.Second, "ScalingActive False without metrics", func() string {
		got := get(t, mgmt, hpa)
		c := meta.FindStatusCondition(got.Status.Conditions, multiclusterv1alpha1.ConditionScalingActive)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != "FailedGetResourceMetric" {
			return fmt.Sprintf("ScalingActive = %+v", c)
		}
		return ""
	})
	if got := replicas(t, mgmt, mcd); got != 2 {
		t.Fatalf("replicas = %d without metrics, want 2 (left as they are)", got)
	}

	// Each pod uses all of its 500m: 100% against a 50% target, so the
	// backend doubles.
	for i := range 2 {
		podMetrics(t, member, fmt.Sprintf("backend-%d", i), labels, "500m")
	}
	testenv.Eventually(t, 30*time.Second, "scaled to 4", func() string {
		if got := replicas(t, mgmt, mcd); got != 4 {
			return fmt.Sprintf("replicas %d", got)
		}
		got := get(t, mgmt, hpa)
		if got.Status.LastScaleTime == nil || got.Status.DesiredReplicas != 4 {
			return fmt.Sprintf("status %+v", got.Status)
		}
		return ""
	})

	// Usage drops, but the one-hour cool-down holds the scale-down.
	for i := range 2 {
		podMetrics(t, member, fmt.Sprintf("backend-%d", i), labels, "10m")
	}
	time.Sleep(2 * time.Second)
	if got := replicas(t, mgmt, mcd); got != 4 {
		t.Errorf("replicas = %d during the cool-down, want 4", got)
	}
}

func installPodMetricsAPI(t *testing.T, c client.Client) {
	t.Helper()
	data, err := os.ReadFile("testdata/podmetrics-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "PodMetrics API served", func() string {
		if err := c.List(t.Context(), &metricsv1beta1.PodMetricsList{}); err != nil {
			return err.Error()
		}
		return ""
	})
}

func runPod(t *testing.T, c client.Client, name string, labels map[string]string) {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "web", Labels: labels}}
	p.Spec.NodeName = "node-1"
	p.Spec.Containers = []corev1.Container{{Name: "php", Image: "registry.k8s.io/hpa-example",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	if err := c.Status().Update(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

// podMetrics writes the PodMetrics metrics-server would report for a pod.
func podMetrics(t *testing.T, c client.Client, name string, labels map[string]string, cpu string) {
	t.Helper()
	pm := &metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "web", Labels: labels}}
	pm.Timestamp, pm.Window = metav1.Now(), metav1.Duration{Duration: 15 * time.Second}
	pm.Containers = []metricsv1beta1.ContainerMetrics{{Name: "php", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}
	existing := &metricsv1beta1.PodMetrics{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(pm), existing); err == nil {
		pm.ResourceVersion = existing.ResourceVersion
		if err := c.Update(t.Context(), pm); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := c.Create(t.Context(), pm); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, c client.Client, hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler {
	t.Helper()
	got := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(hpa), got); err != nil {
		t.Fatal(err)
	}
	return got
}

func replicas(t *testing.T, c client.Client, mcd *multiclusterv1alpha1.MultiClusterDeployment) int32 {
	t.Helper()
	got := &multiclusterv1alpha1.MultiClusterDeployment{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(mcd), got); err != nil {
		t.Fatal(err)
	}
	return ptr.Deref(got.Spec.Replicas, 0)
}
