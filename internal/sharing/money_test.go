package sharing_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

func TestPerHour(t *testing.T) {
	cases := []struct {
		name   string
		amount string
		period sharingv1alpha1.PricePeriod
		want   string
	}{
		{"no period is an hour", "0.5", "", "1/2"},
		{"an hour", "0.5", sharingv1alpha1.PeriodHour, "1/2"},
		{"a day is 24 hours", "12", sharingv1alpha1.PeriodDay, "1/2"},
		{"a month is 730 hours, kept exact", "1", sharingv1alpha1.PeriodMonth, "1/730"},
		{"an unknown period", "1", "Week", "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := "unknown"
			if m, ok := sharing.PerHour(sharingv1alpha1.Money{Amount: q(tc.amount), Currency: "EUR", Period: tc.period}); ok {
				got = m.Rat().String()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PerHour (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPerUnitHour(t *testing.T) {
	cases := []struct {
		name string
		p    sharingv1alpha1.Price
		want string
	}{
		{"cpu per core hour", sharingv1alpha1.Price{Resource: "cpu", Amount: q("0.031"), Unit: q("1")}, "31/1000"},
		{"memory per 512Mi per day is per GiB per hour", sharingv1alpha1.Price{Resource: "memory", Amount: q("0.24"), Unit: q("512Mi"), Period: sharingv1alpha1.PeriodDay}, "1/50"},
		{"cpu per 500m", sharingv1alpha1.Price{Resource: "cpu", Amount: q("0.05"), Unit: q("500m")}, "1/10"},
		{"a unit of zero", sharingv1alpha1.Price{Resource: "cpu", Amount: q("0.05"), Unit: q("0")}, "unusable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := "unusable"
			if m, ok := sharing.PerUnitHour(tc.p); ok {
				got = m.Rat().String()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PerUnitHour (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPriceOf(t *testing.T) {
	eur := func(resource, amount, unit string, period sharingv1alpha1.PricePeriod) sharingv1alpha1.Price {
		return sharingv1alpha1.Price{Resource: resource, Amount: q(amount), Unit: q(unit), Currency: "EUR", Period: period}
	}
	cases := []struct {
		name     string
		pods     []corev1.ResourceList
		prices   []sharingv1alpha1.Price
		currency string
		want     string
	}{
		{"cpu and memory of two pods", []corev1.ResourceList{rl("500m", "1Gi"), rl("1500m", "512Mi")},
			[]sharingv1alpha1.Price{eur("cpu", "0.3", "1", ""), eur("memory", "0.24", "1Gi", sharingv1alpha1.PeriodDay)}, "", "615m EUR/Hour"},
		// Half a millionth rounds up; through a float64 (4.99...e-07) it
		// rounded down to nothing.
		{"exact to the millionth", []corev1.ResourceList{rl("1", "0")}, []sharingv1alpha1.Price{eur("cpu", "0.0000005", "1", "")}, "", "1u EUR/Hour"},
		{"a monthly price per hour", []corev1.ResourceList{rl("2", "0")}, []sharingv1alpha1.Price{eur("cpu", "7.3", "1", sharingv1alpha1.PeriodMonth)}, "", "20m EUR/Hour"},
		{"no prices: free in the quote's currency", []corev1.ResourceList{rl("2", "0")}, nil, "USD", "0 USD/Hour"},
		{"no prices and no currency: EUR", []corev1.ResourceList{rl("2", "0")}, nil, "", "0 EUR/Hour"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := sharing.PriceOf(tc.pods, tc.prices, tc.currency)
			got := m.Amount.String() + " " + m.Currency + "/" + string(m.Period)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PriceOf (-want +got):\n%s", diff)
			}
		})
	}
}
