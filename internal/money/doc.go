// Package money counts money exactly, for every part of Meridian that
// prices something: sharing's prices and auctions, the cloud provisioner's
// choice of flavors, the optimizer's cost of an advice and a CloudVM's
// price.
//
// An amount is a rational number (math/big.Rat) made from the decimal of a
// resource.Quantity or a decimal string, never from a float64, so two sides
// that price the same thing agree to the last digit and no choice turns on
// a rounding error. A Money carries its currency: adding or comparing two
// amounts of different currencies is refused with ErrMixedCurrencies,
// because no exchange rate is known here, and the callers name the field
// at fault. An amount becomes a resource.Quantity again, rounded to a
// millionth, only through Money.Quantity, which is what the API shows.
//
// The zero Money is nothing in no currency: an unpriced thing, which costs
// nothing and compares with an amount of any currency.
package money
