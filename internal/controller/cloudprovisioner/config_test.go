package cloudprovisioner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/money"
)

func TestPools(t *testing.T) {
	flavor := func(name, cpu, price string) multiclusterv1alpha1.CloudFlavor {
		f := multiclusterv1alpha1.CloudFlavor{Name: name, CPU: resource.MustParse(cpu), Memory: resource.MustParse("8Gi")}
		if price != "" {
			f.PricePerHour = &multiclusterv1alpha1.Money{Amount: resource.MustParse(price), Currency: "USD"}
		}
		return f
	}
	inEUR := func(f multiclusterv1alpha1.CloudFlavor) multiclusterv1alpha1.CloudFlavor {
		f.PricePerHour.Currency = "EUR"
		return f
	}
	tests := []struct {
		name    string
		spec    multiclusterv1alpha1.CloudProvisionerSpec
		want    []string
		wantErr string
	}{
		{
			name: "flavors are pools, the instance type defaulting to the name",
			spec: multiclusterv1alpha1.CloudProvisionerSpec{Flavors: []multiclusterv1alpha1.CloudFlavor{flavor("small", "2", "0.08"), flavor("large", "8", "0.32")}},
			want: []string{"small small 2 0.08 USD/h", "large large 8 0.32 USD/h"},
		},
		{
			name: "a flavor without a price costs nothing",
			spec: multiclusterv1alpha1.CloudProvisionerSpec{Flavors: []multiclusterv1alpha1.CloudFlavor{flavor("small", "2", ""), flavor("large", "8", "0.32")}},
			want: []string{"small small 2 0.00/h", "large large 8 0.32 USD/h"},
		},
		{
			name:    "flavors priced in two currencies are not compared",
			spec:    multiclusterv1alpha1.CloudProvisionerSpec{Flavors: []multiclusterv1alpha1.CloudFlavor{flavor("small", "2", "0.08"), inEUR(flavor("large", "8", "0.30"))}},
			wantErr: `invalid CloudProvisioner spec: spec.flavors[large].pricePerHour.currency: Invalid value: "EUR": must be USD, the currency of spec.flavors[small].pricePerHour.currency: the provisioner compares flavors by price`,
		},
		{
			name: "a price stored before prices carried their currency",
			spec: multiclusterv1alpha1.CloudProvisionerSpec{Flavors: []multiclusterv1alpha1.CloudFlavor{
				{Name: "small", CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi"), PricePerHour: &multiclusterv1alpha1.Money{Amount: resource.MustParse("0.08")}}}},
			wantErr: `invalid CloudProvisioner spec: spec.flavors[small].pricePerHour.currency: Invalid value: "": must be an ISO 4217 code such as USD`,
		},
		{
			name:    "neither",
			wantErr: "invalid CloudProvisioner spec: spec.flavors: Required value: at least one flavor (name, cpu, memory, pricePerHour)",
		},
		{
			name:    "a flavor without CPU and a negative price",
			spec:    multiclusterv1alpha1.CloudProvisionerSpec{Flavors: []multiclusterv1alpha1.CloudFlavor{flavor("small", "0", "-0.08")}},
			wantErr: `invalid CloudProvisioner spec: [spec.flavors[small].cpu: Invalid value: "0": must be positive, such as 4 or 3500m, spec.flavors[small].pricePerHour.amount: Invalid value: "-80m": must be a decimal of at least 0, such as 0.16]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps, fs, err := pools(&multiclusterv1alpha1.CloudProvisioner{Spec: tc.spec})
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			var got []string
			for i, p := range ps {
				got = append(got, p.Name+" "+p.Flavor+" "+resource.NewMilliQuantity(fs[i].Allocatable.MilliCPU, resource.DecimalSI).String()+" "+formatPrice(fs[i].PricePerHour))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pools (-want +got):\n%s", diff)
			}
		})
	}
}

// usdPerHour is a flavor's price of amount US dollars an hour.
func usdPerHour(amount string) *multiclusterv1alpha1.Money {
	return &multiclusterv1alpha1.Money{Amount: resource.MustParse(amount), Currency: "USD"}
}

func formatPrice(p money.Money) string { return p.Format(2) + "/h" }

func TestJobAsked(t *testing.T) {
	tests := []struct {
		name                                string
		parallelism, completions, succeeded *int32
		want                                int32
	}{
		{name: "defaults: one pod", want: 1},
		{name: "parallelism without completions", parallelism: ptr.To[int32](4), want: 4},
		{name: "completions left below parallelism", parallelism: ptr.To[int32](4), completions: ptr.To[int32](10), succeeded: ptr.To[int32](8), want: 2},
		{name: "done", parallelism: ptr.To[int32](4), completions: ptr.To[int32](10), succeeded: ptr.To[int32](10), want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := &multiclusterv1alpha1.MultiClusterJob{}
			j.Spec.Parallelism, j.Spec.Completions = tc.parallelism, tc.completions
			j.Status.Succeeded = ptr.Deref(tc.succeeded, 0)
			if diff := cmp.Diff(tc.want, jobAsked(j)); diff != "" {
				t.Errorf("jobAsked (-want +got):\n%s", diff)
			}
		})
	}
}
