package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/open-policy-agent/opa/v1/ast"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/money"
)

func TestEngineVM(t *testing.T) {
	e, err := New(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      VMInput
		want    []carbon.Candidate
		removed map[string]VMRemoval // some of the removals, by region
		// unverified are the providers among the candidates whose prices
		// have no recorded source.
		unverified []string
		wantErr    error
	}{
		{
			name: "EU near westeurope: every provider's regions judged, the origin first",
			in:   VMInput{Name: "ns/a", CPUMilli: 2000, MemoryMiB: 8192, OriginRegion: "westeurope", MaxLatencyMs: 9, Residency: "EU"},
			want: []carbon.Candidate{
				{Provider: "azure", Region: "westeurope", Zone: "NL", InstanceType: "Standard_D2s_v5", PricePerHour: usd("0.115"), LatencyMs: 0},
				{Provider: "gcp", Region: "europe-west4", Zone: "NL", InstanceType: "e2-standard-2", PricePerHour: usd("0.07377204"), LatencyMs: 4},
				{Provider: "gcp", Region: "europe-west1", Zone: "BE", InstanceType: "e2-standard-2", PricePerHour: usd("0.07371546"), LatencyMs: 9},
			},
			removed: map[string]VMRemoval{
				"uksouth":   {Provider: "azure", Region: "uksouth", Policy: "latency", Reason: "round-trip time from westeurope is 13 ms, above the limit of 9 ms"},
				"eu-west-2": {Provider: "aws", Region: "eu-west-2", Policy: "latency", Reason: "round-trip time from westeurope is 11 ms, above the limit of 9 ms"},
				"us-east-1": {Provider: "aws", Region: "us-east-1", Policy: "latency", Reason: "round-trip time from westeurope is 117 ms, above the limit of 9 ms"},
				"eu-west-1": {Provider: "aws", Region: "eu-west-1", Policy: "latency", Reason: "round-trip time from westeurope is 18 ms, above the limit of 9 ms"},
				"japaneast": {Provider: "azure", Region: "japaneast", Policy: "latency", Reason: "round-trip time from westeurope is 240 ms, above the limit of 9 ms"},
			},
		},
		{
			name: "an AWS region the price source does not cover: us-east-1's price, named unverified",
			in:   VMInput{Name: "ns/e", CPUMilli: 2000, MemoryMiB: 8192, Provider: "aws", Region: "eu-west-1"},
			want: []carbon.Candidate{
				{Provider: "aws", Region: "eu-west-1", Zone: "IE", InstanceType: "m7i.large", PricePerHour: usd("0.1008"), LatencyMs: 0},
			},
			unverified: []string{"aws"},
		},
		{
			name: "pinned provider and a region of another provider: nothing left, and why",
			in:   VMInput{Name: "ns/b", CPUMilli: 2000, MemoryMiB: 8192, Provider: "azure", Region: "eu-west-1"},
			want: []carbon.Candidate{},
			removed: map[string]VMRemoval{
				"eu-west-1":  {Provider: "aws", Region: "eu-west-1", Policy: "providers", Reason: "the VM is pinned to provider azure"},
				"westeurope": {Provider: "azure", Region: "westeurope", Policy: "pin", Reason: "the VM is pinned to region eu-west-1"},
			},
		},
		{
			name:    "unknown provider",
			in:      VMInput{Name: "ns/c", CPUMilli: 2000, MemoryMiB: 8192, Providers: []string{"ibm"}},
			want:    []carbon.Candidate{},
			wantErr: ErrInvalidInput,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.VM(t.Context(), tc.in)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("VM() error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got.Candidates, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			byRegion := map[string]VMRemoval{}
			for _, r := range got.Removed {
				byRegion[r.Region] = r
			}
			for region, want := range tc.removed {
				if diff := cmp.Diff(want, byRegion[region]); diff != "" {
					t.Errorf("removal of %s (-want +got):\n%s", region, diff)
				}
			}
			if diff := cmp.Diff(tc.unverified, got.UnverifiedPrices, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("unverified prices (-want +got):\n%s", diff)
			}
			if got.Revision != e.Revision() || got.DecisionID == "" {
				t.Errorf("decision has revision %q and ID %q, want revision %q and an ID", got.Revision, got.DecisionID, e.Revision())
			}
			if len(got.Steps) != 6 {
				t.Errorf("decision has %d steps, want 6", len(got.Steps))
			}
		})
	}
}

// TestReadVMDocument checks that the decision read straight from the Rego
// value is the one encoding/json reads from the logged JSON, and that a
// document of another shape is read through its JSON.
func TestReadVMDocument(t *testing.T) {
	e, err := New(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []VMInput{
		{Name: "ns/a", CPUMilli: 2000, MemoryMiB: 8192, OriginRegion: "westeurope", MaxLatencyMs: 30, Residency: "EU"},
		{Name: "ns/b", CPUMilli: 64000, MemoryMiB: 8192},
		{Name: "ns/c", CPUMilli: 0, MemoryMiB: 1, Providers: []string{"ibm"}},
		{Name: "ns/d", CPUMilli: 4000, MemoryMiB: 16384, Provider: "gcp", Region: "europe-west4"},
	} {
		t.Run(in.Name, func(t *testing.T) {
			d, err := e.Eval(t.Context(), VMQuery, in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := decodeVMDocument(d.Result)
			if err != nil {
				t.Fatal(err)
			}
			v, err := parseInput("test", d.Result)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readVMDocument(v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("document (-json +value):\n%s", diff)
			}
		})
	}
	t.Run("another shape", func(t *testing.T) {
		v := ast.MustParseTerm(`{"candidates": [], "steps": [{"policy": "p", "left": ["a/b"], "extra": 1}], "removed": [], "invalid": ["x"], "unverifiedPrices": "azure"}`).Value
		if _, err := readVMDocument(v); err == nil {
			t.Error("readVMDocument of a document whose unverifiedPrices is a string: no error")
		}
	})
}

// usd is amount US dollars, the shipped price list's currency.
func usd(amount string) money.Money { return money.New(resource.MustParse(amount), "USD") }

// TestCandidatePrices: a candidate's price is read exactly with its
// currency; one without a currency, or candidates in two, are refused,
// naming the policy data's field.
func TestCandidatePrices(t *testing.T) {
	tests := []struct {
		name       string
		candidates string
		want       []string // the prices read
		wantErr    string
	}{
		{name: "exact", candidates: `[{"provider": "aws", "region": "eu-west-1", "pricePerHour": 0.1008, "currency": "USD"}]`, want: []string{"0.1008 USD"}},
		{name: "no currency", candidates: `[{"provider": "aws", "region": "eu-west-1", "pricePerHour": 0.1008}]`,
			wantErr: "data.meridian.clouds.instances.aws.currency names the currency of the provider's prices"},
		{name: "two currencies", candidates: `[{"provider": "aws", "region": "eu-west-1", "pricePerHour": 0.1, "currency": "USD"}, {"provider": "azure", "region": "westeurope", "pricePerHour": 0.1, "currency": "EUR"}]`,
			wantErr: "data.meridian.clouds.instances.<provider>.currency must be one currency for every provider"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := decodeVMDocument([]byte(`{"candidates": ` + tc.candidates + `}`))
			if err == nil {
				err = oneCurrency(doc.Candidates)
			}
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if !strings.Contains(gotErr, tc.wantErr) || (tc.wantErr == "") != (err == nil) {
				t.Fatalf("error %q, want one containing %q", gotErr, tc.wantErr)
			}
			if err != nil {
				return
			}
			var got []string
			for _, c := range doc.Candidates {
				got = append(got, c.PricePerHour.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("prices (-want +got):\n%s", diff)
			}
		})
	}
}
