package sharing

import (
	"math/big"

	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// Hours per price period; a month is 730 hours (a year over twelve).
var periodHours = map[sharingv1alpha1.PricePeriod]int64{
	"":                          1,
	sharingv1alpha1.PeriodHour:  1,
	sharingv1alpha1.PeriodDay:   24,
	sharingv1alpha1.PeriodMonth: 730,
}

// perHour is amount per period as an exact rational amount per hour.
func perHour(amount resource.Quantity, period sharingv1alpha1.PricePeriod) (*big.Rat, bool) {
	h, ok := periodHours[period]
	if !ok {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(amount.AsDec().String())
	if !ok {
		return nil, false
	}
	return r.Quo(r, big.NewRat(h, 1)), true
}
