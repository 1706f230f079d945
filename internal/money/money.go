package money

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Errors of the package.
var (
	// ErrMixedCurrencies: two amounts of different currencies were to be
	// added or compared.
	ErrMixedCurrencies = errors.New("amounts in different currencies cannot be added or compared")
	// ErrNotDecimal: a string is not a decimal number.
	ErrNotDecimal = errors.New("not a decimal number")
	// ErrCurrency: a currency is not an ISO 4217 code.
	ErrCurrency = errors.New("not an ISO 4217 currency code (three capital letters, such as EUR or USD)")
)

// Places is how many decimals Quantity keeps: a millionth of the currency.
const Places = 6

// Money is an exact amount of one currency. It is a value: no method
// changes it.
type Money struct {
	amount   *big.Rat // nil is zero
	currency string
}

// New is amount of currency, exactly.
func New(amount resource.Quantity, currency string) Money {
	return Money{amount: Rat(amount), currency: currency}
}

// FromRat is r of currency; r is copied.
func FromRat(r *big.Rat, currency string) Money {
	if r == nil {
		return Money{currency: currency}
	}
	return Money{amount: new(big.Rat).Set(r), currency: currency}
}

// Zero is no amount of currency.
func Zero(currency string) Money { return Money{currency: currency} }

// decimal is a decimal number as JSON writes one, without a sign: digits,
// optional fraction and exponent.
var decimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// Parse reads amount, a decimal such as "0.16" or a JSON number, of
// currency, exactly. The error says which of the two is wrong.
func Parse(amount, currency string) (Money, error) {
	if !decimal.MatchString(amount) {
		return Money{}, fmt.Errorf("amount %q: %w", amount, ErrNotDecimal)
	}
	r, ok := new(big.Rat).SetString(amount)
	if !ok {
		return Money{}, fmt.Errorf("amount %q: %w", amount, ErrNotDecimal)
	}
	if err := ValidCurrency(currency); err != nil {
		return Money{}, err
	}
	return Money{amount: r, currency: currency}, nil
}

// currencyCode is an ISO 4217 code's shape.
var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// ValidCurrency is nil when code is shaped as an ISO 4217 code, the rule
// the API's schema checks too.
func ValidCurrency(code string) error {
	if !currencyCode.MatchString(code) {
		return fmt.Errorf("currency %q: %w", code, ErrCurrency)
	}
	return nil
}

// Currency is m's currency; empty for the zero Money.
func (m Money) Currency() string { return m.currency }

// Rat is m's amount, a copy.
func (m Money) Rat() *big.Rat {
	if m.amount == nil {
		return new(big.Rat)
	}
	return new(big.Rat).Set(m.amount)
}

// Sign is -1, 0 or 1 as m's amount is negative, zero or positive.
func (m Money) Sign() int {
	if m.amount == nil {
		return 0
	}
	return m.amount.Sign()
}

// IsZero reports whether m is the zero Money: no amount, no currency.
func (m Money) IsZero() bool { return m.Sign() == 0 && m.currency == "" }

// Compatible reports whether m and o may be added and compared: their
// currencies are the same, or one of them has none.
func (m Money) Compatible(o Money) bool {
	return m.currency == "" || o.currency == "" || m.currency == o.currency
}

// in is the currency of a result of m and o, or ErrMixedCurrencies.
func (m Money) in(o Money) (string, error) {
	if !m.Compatible(o) {
		return "", fmt.Errorf("%s and %s: %w", m.currency, o.currency, ErrMixedCurrencies)
	}
	if m.currency != "" {
		return m.currency, nil
	}
	return o.currency, nil
}

// Cmp compares m with o: -1, 0 or 1 as m is less than, equal to or more
// than o; ErrMixedCurrencies when their currencies differ.
func (m Money) Cmp(o Money) (int, error) {
	if _, err := m.in(o); err != nil {
		return 0, err
	}
	return m.Rat().Cmp(o.Rat()), nil
}

// Equal reports whether m and o are the same amount of the same currency
// (go-cmp compares Money with it).
func (m Money) Equal(o Money) bool {
	return m.currency == o.currency && m.Rat().Cmp(o.Rat()) == 0
}

// Add is m plus o; ErrMixedCurrencies when their currencies differ.
func (m Money) Add(o Money) (Money, error) {
	c, err := m.in(o)
	if err != nil {
		return Money{}, err
	}
	r := m.Rat()
	return Money{amount: r.Add(r, o.Rat()), currency: c}, nil
}

// Mul is m times n.
func (m Money) Mul(n int64) Money {
	r := m.Rat()
	return Money{amount: r.Mul(r, big.NewRat(n, 1)), currency: m.currency}
}

// MulRat is m times r.
func (m Money) MulRat(r *big.Rat) Money {
	a := m.Rat()
	return Money{amount: a.Mul(a, r), currency: m.currency}
}

// QuoRat is m divided by r, which must not be zero.
func (m Money) QuoRat(r *big.Rat) Money {
	a := m.Rat()
	return Money{amount: a.Quo(a, r), currency: m.currency}
}

// Quantity is m's amount rounded to a millionth (half away from zero), as
// the API holds amounts.
func (m Money) Quantity() resource.Quantity { return Round(m.Rat()) }

// Float64 is m's amount as the nearest float64, for reports, charts and
// policy inputs; never for a decision.
func (m Money) Float64() float64 {
	f, _ := m.Rat().Float64()
	return f
}

// Format is m's amount with places decimals and its currency, "0.1600 USD";
// without a currency, the amount alone.
func (m Money) Format(places int) string {
	s := m.Rat().FloatString(places)
	if m.currency == "" {
		return s
	}
	return s + " " + m.currency
}

// String is m with four decimals, for messages.
func (m Money) String() string { return m.Format(4) }

// Decimal is m's amount rounded to a millionth, without trailing zeros:
// "0.28", "3", "0.000137".
func (m Money) Decimal() string {
	s := m.Rat().FloatString(Places)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// jsonMoney is Money in JSON, as the API writes it: {"amount": "0.28",
// "currency": "USD"}. An amount may be read from a JSON number too.
type jsonMoney struct {
	Amount   json.Number `json:"amount"`
	Currency string      `json:"currency,omitempty"`
}

// MarshalJSON writes m as {"amount": "0.28", "currency": "USD"}, the
// amount rounded to a millionth.
func (m Money) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency,omitempty"`
	}{m.Decimal(), m.currency})
}

// UnmarshalJSON reads {"amount": "0.28", "currency": "USD"} (or the
// amount as a JSON number) exactly, refusing an amount that is not a
// decimal and a currency that is not an ISO 4217 code.
func (m *Money) UnmarshalJSON(data []byte) error {
	var j jsonMoney
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("want {\"amount\": \"0.28\", \"currency\": \"USD\"}: %w", err)
	}
	parsed, err := Parse(j.Amount.String(), j.Currency)
	if err != nil {
		return err
	}
	*m = parsed
	return nil
}

// Rat is q exactly.
func Rat(q resource.Quantity) *big.Rat {
	r, ok := new(big.Rat).SetString(q.AsDec().String())
	if !ok {
		return new(big.Rat)
	}
	return r
}

// Round is r rounded to a millionth (half away from zero) as a Quantity.
func Round(r *big.Rat) resource.Quantity {
	return resource.MustParse(r.FloatString(Places))
}
