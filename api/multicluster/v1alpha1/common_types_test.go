package v1alpha1

import (
	"encoding/json"
	"testing"
)

// TestMoneyReadsTheShapeBeforeMoney: a price stored before prices carried
// their currency (a bare decimal) is read as an amount without one, so
// that an object stored then can be read and its currency named; a Money
// is read as written.
func TestMoneyReadsTheShapeBeforeMoney(t *testing.T) {
	tests := []struct {
		name, in     string
		wantAmount   string
		wantCurrency string
		wantErr      bool
	}{
		{name: "money", in: `{"amount": "0.16", "currency": "USD"}`, wantAmount: "160m", wantCurrency: "USD"},
		{name: "a bare decimal string, as stored before", in: `"0.16"`, wantAmount: "160m"},
		{name: "a bare number", in: `2`, wantAmount: "2"},
		{name: "not a decimal", in: `"cheap"`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f CloudFlavor
			err := json.Unmarshal([]byte(`{"name": "a", "cpu": "1", "memory": "1Gi", "pricePerHour": `+tc.in+`}`), &f)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Unmarshal error %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got := f.PricePerHour.Amount.String() + " " + f.PricePerHour.Currency; got != tc.wantAmount+" "+tc.wantCurrency {
				t.Errorf("pricePerHour = %q, want %q", got, tc.wantAmount+" "+tc.wantCurrency)
			}
			out, err := json.Marshal(f.PricePerHour)
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"amount":"` + tc.wantAmount + `","currency":"` + tc.wantCurrency + `"}`; string(out) != want {
				t.Errorf("written back as %s, want %s", out, want)
			}
		})
	}
}
