package multiclusterhpa_test

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestOptimizerSpecIsValidatedNamingTheField applies broken variants of
// examples/mchpa-optimizer.yaml to a real API server and checks that the
// refusal names the field and what is valid.
func TestOptimizerSpecIsValidatedNamingTheField(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "web"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../../examples/mchpa-optimizer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	example := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{}
	if err := yaml.Unmarshal(data, example); err != nil {
		t.Fatal(err)
	}
	example.Namespace = "web"
	tests := []struct {
		name   string
		change func(o *multiclusterv1alpha1.OptimizerSpec)
		want   []string
	}{
		{"band upside down", func(o *multiclusterv1alpha1.OptimizerSpec) { o.Target.MinThreshold = resource.MustParse("200") },
			[]string{"spec.optimizer.target.maxThreshold", "minThreshold must be less than target.maxThreshold"}},
		{"band upside down in milli-units", func(o *multiclusterv1alpha1.OptimizerSpec) {
			o.Target.MinThreshold, o.Target.MaxThreshold = resource.MustParse("0.2"), resource.MustParse("150m")
		},
			[]string{"spec.optimizer.target.maxThreshold", "minThreshold must be less than target.maxThreshold"}},
		{"metric name", func(o *multiclusterv1alpha1.OptimizerSpec) { o.Inputs[0].Name = "avg rr" },
			[]string{"spec.optimizer.inputs[0].name", "should match"}},
		{"no inputs", func(o *multiclusterv1alpha1.OptimizerSpec) { o.Inputs = nil },
			[]string{"spec.optimizer.inputs", "Required value"}},
		{"target named as an input", func(o *multiclusterv1alpha1.OptimizerSpec) { o.Target.Name = "CPU" },
			[]string{"spec.optimizer.target.name", "must differ from every inputs[].name"}},
		{"too few training samples", func(o *multiclusterv1alpha1.OptimizerSpec) { o.TrainingSamplesRequired = ptr.To[int32](5) },
			[]string{"spec.optimizer.trainingSamplesRequired", "greater than or equal to 10"}},
		{"zero upscale delta", func(o *multiclusterv1alpha1.OptimizerSpec) { o.MaxUpscaleDelta = ptr.To[int32](0) },
			[]string{"spec.optimizer.maxUpscaleDelta", "greater than or equal to 1"}},
		{"prometheus URL without scheme", func(o *multiclusterv1alpha1.OptimizerSpec) { o.PrometheusURL = "prometheus:9090" },
			[]string{"spec.optimizer.prometheusURL", "http or https base URL"}},
		{"prices in two currencies", func(o *multiclusterv1alpha1.OptimizerSpec) { o.Clusters[1].PricePerHour.Currency = "EUR" },
			[]string{"spec.optimizer.clusters", "must be in one currency"}},
		{"price without a currency", func(o *multiclusterv1alpha1.OptimizerSpec) { o.Clusters[1].PricePerHour.Currency = "usd" },
			[]string{"spec.optimizer.clusters[1].pricePerHour.currency", "should match"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := example.DeepCopy()
			obj.Name = "invalid-" + string(rune('a'+i))
			tc.change(obj.Spec.Optimizer)
			err := c.Create(t.Context(), obj)
			if err == nil {
				t.Fatalf("created; want a refusal naming %q", tc.want[0])
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// Manifests written before thresholds were quantities and prices
	// money: refused, naming the field, never read as something else.
	old := []struct {
		name  string
		path  []string
		value any
		want  []string
	}{
		{"threshold that is not a quantity", []string{"target", "maxThreshold"}, "160ms", []string{"spec.optimizer.target.maxThreshold", "quantities must match"}},
		{"price without its currency", []string{"clusters"}, []any{map[string]any{"name": "cluster1", "pricePerHour": "0.04"}},
			[]string{"spec.optimizer.clusters[0].pricePerHour", "must be of type object"}},
	}
	for i, tc := range old {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(example)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: raw}
			u.SetName("old-" + string(rune('a'+i)))
			if err := unstructured.SetNestedField(u.Object, tc.value, append([]string{"spec", "optimizer"}, tc.path...)...); err != nil {
				t.Fatal(err)
			}
			err = c.Create(t.Context(), u)
			if err == nil {
				t.Fatalf("created; want a refusal naming %q", tc.want[0])
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	valid := example.DeepCopy()
	valid.Name = "valid"
	if err := c.Create(t.Context(), valid); err != nil {
		t.Errorf("the example is refused: %v", err)
	}
}
