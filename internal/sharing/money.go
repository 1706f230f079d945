package sharing

import (
	"math/big"

	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/money"
)

// Sharing's prices are counted with internal/money, exactly: every price
// is turned into an amount per hour with PerHour, and a result becomes the
// API's Money again, rounded to a millionth, only with HourlyMoney.

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

// PerHour is m per hour, exactly; false for an unknown period.
func PerHour(m sharingv1alpha1.Money) (money.Money, bool) {
	h, ok := periodHours[m.Period]
	if !ok {
		return money.Money{}, false
	}
	return money.New(m.Amount, m.Currency).QuoRat(big.NewRat(h, 1)), true
}

// HourlyMoney is an amount per hour as the API's Money, rounded to a
// millionth of its currency.
func HourlyMoney(perHour money.Money) *sharingv1alpha1.Money {
	return &sharingv1alpha1.Money{Amount: perHour.Quantity(), Currency: perHour.Currency(), Period: sharingv1alpha1.PeriodHour}
}

// PerUnitHour is a price per core of cpu, per GiB of memory or storage,
// per unit of anything else, per hour, exactly; false when its unit is not
// greater than zero or its period is unknown.
func PerUnitHour(p sharingv1alpha1.Price) (money.Money, bool) {
	unit := money.Rat(p.Unit)
	if unit.Sign() <= 0 {
		return money.Money{}, false
	}
	m, ok := PerHour(sharingv1alpha1.Money{Amount: p.Amount, Currency: p.Currency, Period: p.Period})
	if !ok {
		return money.Money{}, false
	}
	m = m.QuoRat(unit)
	if perGiB(corev1.ResourceName(p.Resource)) {
		m = m.MulRat(big.NewRat(1<<30, 1))
	}
	return m, true
}

// PriceOf is what pods with these requests cost per hour under prices, in
// the prices' currency (currency when there are none, EUR when that is
// empty too): the sum over prices and pods of the amount requested, in
// cores, GiB or units, times the price per unit and hour. A price whose
// unit or period is unusable, or whose currency is not the first price's,
// counts nothing: the API server and Validate refuse prices in two
// currencies. A provider prices an offer with it, and the broker a pod it
// lists, so both agree.
func PriceOf(pods []corev1.ResourceList, prices []sharingv1alpha1.Price, currency string) *sharingv1alpha1.Money {
	if len(prices) > 0 {
		currency = prices[0].Currency
	}
	if currency == "" {
		currency = "EUR"
	}
	total := money.Zero(currency)
	for _, p := range prices {
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
			amount := money.Rat(q)
			if perGiB(name) {
				amount.Quo(amount, big.NewRat(1<<30, 1))
			}
			if sum, err := total.Add(per.MulRat(amount)); err == nil {
				total = sum
			}
		}
	}
	return HourlyMoney(total)
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
