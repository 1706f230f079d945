package money_test

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/money"
)

func usd(s string) money.Money { return money.New(resource.MustParse(s), "USD") }

func TestParse(t *testing.T) {
	cases := []struct {
		name, amount, currency string
		want                   string
		wantErr                error
	}{
		{name: "a decimal", amount: "0.16", currency: "USD", want: "4/25 USD"},
		{name: "a JSON number with an exponent", amount: "1.5e-2", currency: "EUR", want: "3/200 EUR"},
		{name: "an integer", amount: "3", currency: "EUR", want: "3 EUR"},
		{name: "a quantity suffix is not a decimal", amount: "160m", currency: "USD", wantErr: money.ErrNotDecimal},
		{name: "a fraction is not a decimal", amount: "1/3", currency: "USD", wantErr: money.ErrNotDecimal},
		{name: "NaN", amount: "NaN", currency: "USD", wantErr: money.ErrNotDecimal},
		{name: "a lower-case currency", amount: "1", currency: "usd", wantErr: money.ErrCurrency},
		{name: "no currency", amount: "1", currency: "", wantErr: money.ErrCurrency},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := money.Parse(tc.amount, tc.currency)
			if diff := cmp.Diff(tc.wantErr, err, cmpIs); diff != "" {
				t.Fatalf("Parse(%q, %q) error (-want +got):\n%s", tc.amount, tc.currency, diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, m.Rat().RatString()+" "+m.Currency()); diff != "" {
				t.Errorf("Parse(%q, %q) (-want +got):\n%s", tc.amount, tc.currency, diff)
			}
		})
	}
}

// cmpIs compares errors by errors.Is.
var cmpIs = cmpopts.EquateErrors()

func TestArithmetic(t *testing.T) {
	eur := money.New(resource.MustParse("1"), "EUR")
	cases := []struct {
		name    string
		do      func() (money.Money, error)
		want    string
		wantErr error
	}{
		{name: "sum is exact where float64 is not", do: func() (money.Money, error) { return usd("0.1").Add(usd("0.2")) }, want: "0.300000 USD"},
		{name: "the zero Money adds to any currency", do: func() (money.Money, error) { return money.Money{}.Add(usd("0.5")) }, want: "0.500000 USD"},
		{name: "mixed currencies are refused", do: func() (money.Money, error) { return eur.Add(usd("1")) }, wantErr: money.ErrMixedCurrencies},
		{name: "times a count", do: func() (money.Money, error) { return usd("0.096").Mul(3), nil }, want: "0.288000 USD"},
		{name: "divided exactly", do: func() (money.Money, error) { return usd("1").QuoRat(big.NewRat(730, 1)), nil }, want: "0.001370 USD"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.do()
			if diff := cmp.Diff(tc.wantErr, err, cmpIs); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got.Format(money.Places)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCmp(t *testing.T) {
	cases := []struct {
		name    string
		a, b    money.Money
		want    int
		wantErr error
	}{
		{name: "less", a: usd("0.16"), b: usd("0.32"), want: -1},
		{name: "equal however written", a: usd("0.160"), b: usd("160m"), want: 0},
		{name: "unpriced is free beside any currency", a: money.Money{}, b: usd("0.01"), want: -1},
		{name: "different currencies", a: usd("1"), b: money.New(resource.MustParse("1"), "EUR"), wantErr: money.ErrMixedCurrencies},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.a.Cmp(tc.b)
			if diff := cmp.Diff(tc.wantErr, err, cmpIs); diff != "" {
				t.Fatalf("Cmp error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Cmp (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQuantity(t *testing.T) {
	cases := []struct {
		name string
		m    money.Money
		want string
	}{
		// Half a millionth rounds up; through a float64 (4.99...e-07) it
		// rounded down to nothing.
		{name: "half a millionth rounds away from zero", m: usd("0.0000005"), want: "1u"},
		{name: "a millionth is kept", m: usd("0.096"), want: "96m"},
		{name: "zero", m: money.Money{}, want: "0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.m.Quantity()
			if diff := cmp.Diff(tc.want, q.String()); diff != "" {
				t.Errorf("Quantity (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "amount as a string", in: `{"amount": "0.040", "currency": "USD"}`, want: `{"amount":"0.04","currency":"USD"}`},
		{name: "amount as a number", in: `{"amount": 0.1, "currency": "EUR"}`, want: `{"amount":"0.1","currency":"EUR"}`},
		{name: "a bare number, as written before the money shape", in: `0.04`, wantErr: true},
		{name: "no currency", in: `{"amount": "0.04"}`, wantErr: true},
		{name: "an unknown field", in: `{"amount": "0.04", "currency": "USD", "period": "Hour"}`, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var m money.Money
			err := json.Unmarshal([]byte(tc.in), &m)
			if diff := cmp.Diff(tc.wantErr, err != nil); diff != "" {
				t.Fatalf("Unmarshal(%s) = %v (-want error +got error):\n%s", tc.in, err, diff)
			}
			if err != nil {
				return
			}
			out, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(out)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
		})
	}
}
