package sharing

import (
	"math/big"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// Money is counted here and nowhere else: amounts are exact rationals
// (math/big.Rat made from resource.Quantity's decimal), every price is
// turned into an amount per hour with PerHour, and a result becomes Money
// again, rounded to a millionth, only with HourlyMoney. No price goes
// through a float64, so two sides that price the same thing agree to the
// last digit and an auction never turns on a rounding error.

// periodHours is the hours of each price period; a month is 730 hours (a
// year over twelve), and no period means an hour.
var periodHours = map[sharingv1alpha1.PricePeriod]int64{
	"":                          1,
	sharingv1alpha1.PeriodHour:  1,
	sharingv1alpha1.PeriodDay:   24,
	sharingv1alpha1.PeriodMonth: 730,
}

// PeriodHours is how many hours period lasts; false for a period that is
// none of Hour, Day, Month (or empty, an hour).
func PeriodHours(period sharingv1alpha1.PricePeriod) (int64, bool) {
	h, ok := periodHours[period]
	return h, ok
}

// PerHour is amount per period as an exact amount per hour; false for an
// unknown period.
func PerHour(amount resource.Quantity, period sharingv1alpha1.PricePeriod) (*big.Rat, bool) {
	h, ok := periodHours[period]
	if !ok {
		return nil, false
	}
	r := rat(amount)
	return r.Quo(r, big.NewRat(h, 1)), true
}

// MoneyPerHour is m per hour, exactly; false for an unknown period.
func MoneyPerHour(m *sharingv1alpha1.Money) (*big.Rat, bool) {
	return PerHour(m.Amount, m.Period)
}

// HourlyMoney is an amount per hour as Money, rounded to a millionth of
// the currency.
func HourlyMoney(perHour *big.Rat, currency string) *sharingv1alpha1.Money {
	return &sharingv1alpha1.Money{Amount: resource.MustParse(perHour.FloatString(6)), Currency: currency, Period: sharingv1alpha1.PeriodHour}
}

// PerUnitHour is a price per core of cpu, per GiB of memory or storage,
// per unit of anything else, per hour, exactly; false when its unit is not
// greater than zero or its period is unknown.
func PerUnitHour(p sharingv1alpha1.Price) (*big.Rat, bool) {
	unit := rat(p.Unit)
	if unit.Sign() <= 0 {
		return nil, false
	}
	r, ok := PerHour(p.Amount, p.Period)
	if !ok {
		return nil, false
	}
	r.Quo(r, unit)
	if perGiB(corev1.ResourceName(p.Resource)) {
		r.Mul(r, big.NewRat(1<<30, 1))
	}
	return r, true
}

// PriceOf is what pods with these requests cost per hour under prices, in
// the prices' currency (currency when there are none, EUR when that is
// empty too): the sum over prices and pods of the amount requested, in
// cores, GiB or units, times the price per unit and hour. A price whose
// unit or period is unusable counts nothing. A provider prices an offer
// with it, and the broker a pod it lists, so both agree.
func PriceOf(pods []corev1.ResourceList, prices []sharingv1alpha1.Price, currency string) *sharingv1alpha1.Money {
	total := new(big.Rat)
	for _, p := range prices {
		currency = p.Currency
		per, ok := PerUnitHour(p)
		if !ok {
			continue
		}
		name := corev1.ResourceName(p.Resource)
		for _, requests := range pods {
			q, ok := requests[name]
			if !ok {
				continue
			}
			amount := rat(q)
			if perGiB(name) {
				amount.Quo(amount, big.NewRat(1<<30, 1))
			}
			total.Add(total, amount.Mul(amount, per))
		}
	}
	if currency == "" {
		currency = "EUR"
	}
	return HourlyMoney(total, currency)
}

// perGiB reports whether a resource is priced per GiB rather than per
// unit.
func perGiB(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourceStorage:
		return true
	}
	return false
}

// rat is q exactly.
func rat(q resource.Quantity) *big.Rat {
	r, ok := new(big.Rat).SetString(q.AsDec().String())
	if !ok {
		return new(big.Rat)
	}
	return r
}
