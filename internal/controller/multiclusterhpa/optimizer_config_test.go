package multiclusterhpa

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/optimizer"
)

// usdPerHour is a replica-hour's price of amount US dollars.
func usdPerHour(amount string) multiclusterv1alpha1.Money {
	return multiclusterv1alpha1.Money{Amount: resource.MustParse(amount), Currency: "USD"}
}

func TestOptimizerConfig(t *testing.T) {
	base := func() *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler {
		hpa := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "app"}}
		hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas = ptr.To[int32](2), 24
		hpa.Spec.Optimizer = &multiclusterv1alpha1.OptimizerSpec{
			Inputs: []multiclusterv1alpha1.OptimizerQuery{{Name: "AVG_RR", Query: "a"}, {Name: "CPU", Query: "b"}},
			Target: multiclusterv1alpha1.OptimizerTarget{OptimizerQuery: multiclusterv1alpha1.OptimizerQuery{Name: "AVG_LAT", Query: "c"},
				MinThreshold: resource.MustParse("105"), MaxThreshold: resource.MustParse("160.5")},
			TrainingSamplesRequired: ptr.To[int32](30),
			MaxUpscaleDelta:         ptr.To[int32](3),
			AdviceFreezeInterval:    &metav1.Duration{Duration: 2 * time.Minute},
			Clusters:                []multiclusterv1alpha1.OptimizerClusterPrice{{Name: "onprem", PricePerHour: usdPerHour("0.04"), MaxReplicas: 8}},
		}
		return hpa
	}
	got, err := optimizerConfig(base())
	if err != nil {
		t.Fatal(err)
	}
	want := optimizer.Default([]string{"AVG_RR", "CPU"}, optimizer.Target{Name: "AVG_LAT", Min: 105, Max: 160.5}, 2, 24)
	want.TrainingSamplesRequired, want.MaxUpscaleDelta, want.FreezeInterval = 30, 3, 2*time.Minute
	want.Clusters = []optimizer.ClusterPrice{{Name: "onprem", PricePerHour: money.New(resource.MustParse("0.04"), "USD"), MaxReplicas: 8}}
	want.Seed = got.Seed
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("optimizerConfig (-want +got):\n%s", diff)
	}
	if got.Seed == 0 {
		t.Errorf("seed 0; want one derived from the autoscaler's name")
	}

	errs := []struct {
		name   string
		change func(*multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler)
		want   string
	}{
		{"price in another currency", func(h *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) {
			h.Spec.Optimizer.Clusters = append(h.Spec.Optimizer.Clusters,
				multiclusterv1alpha1.OptimizerClusterPrice{Name: "cloud", PricePerHour: multiclusterv1alpha1.Money{Amount: resource.MustParse("0.1"), Currency: "EUR"}})
		},
			`spec.optimizer.clusters[1].pricePerHour.currency "EUR": must be USD, the currency of clusters[0]`},
		{"a price stored before prices carried their currency", func(h *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) {
			h.Spec.Optimizer.Clusters[0].PricePerHour.Currency = ""
		},
			`spec.optimizer.clusters[0].pricePerHour.currency: currency "": not an ISO 4217 currency code (three capital letters, such as EUR or USD): write the currency the price is in`},
		{"negative price", func(h *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) {
			h.Spec.Optimizer.Clusters[0].PricePerHour.Amount = resource.MustParse("-0.04")
		},
			`spec.optimizer.clusters[0].pricePerHour.amount -40m: must not be negative`},
		{"band", func(h *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) {
			h.Spec.Optimizer.Target.MaxThreshold = resource.MustParse("100")
		},
			"spec.optimizer: target.max 100: must be finite and above target.min (105)"},
		{"capacity", func(h *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) {
			h.Spec.Optimizer.Clusters[0].MaxReplicas = 1
		},
			"must hold at least minReplicas (2)"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			hpa := base()
			tc.change(hpa)
			_, err := optimizerConfig(hpa)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
