package v1alpha1

import (
	"encoding/json"
	"testing"
)

// TestDecisionPriceReadsTheShapeBeforeMoney: a decision stored before
// prices carried their currency held a bare decimal of US dollars; it is
// read as that many US dollars and written back as money.
func TestDecisionPriceReadsTheShapeBeforeMoney(t *testing.T) {
	for _, in := range []string{`"0.0960"`, `{"amount": "0.096", "currency": "USD"}`} {
		var d CloudVMDecision
		if err := json.Unmarshal([]byte(`{"pricePerHour": `+in+`}`), &d); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, err := json.Marshal(d.PricePerHour)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"amount":"96m","currency":"USD"}`; string(out) != want {
			t.Errorf("%s written back as %s, want %s", in, out, want)
		}
	}
}
