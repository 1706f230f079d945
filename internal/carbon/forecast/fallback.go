package forecast

import "fmt"

// YearlyAverage is the forecast of a zone without hourly history: its yearly
// average (from the offline data's yearly averages, offline.Dataset.Yearly)
// for every hour. It knows neither the daily nor the weekly cycle, so it is
// only right on average: a scheduler comparing such a zone with forecast
// ones compares a mean with hourly values. Its points say so in Fallback.
//
// A profile borrowed from a zone of the same kind was considered and not
// taken: the zones' daily shapes differ by their generation mix (solar
// zones dip at noon, hydro and nuclear zones are flat, coal zones follow
// demand), and nothing in the data says which recorded zone a zone without
// history resembles, so a borrowed shape could be wrong by more than its
// amplitude.
type YearlyAverage struct {
	zone  string
	grams float64
	year  int
}

var _ Model = &YearlyAverage{}

// NewYearlyAverage returns the fallback for the zone: grams, its average of
// year.
func NewYearlyAverage(zone string, grams float64, year int) *YearlyAverage {
	return &YearlyAverage{zone: zone, grams: grams, year: year}
}

// Name implements Model.
func (y *YearlyAverage) Name() string { return YearlyAverageModel }

// Reason says why the forecast is flat; Forecast puts it in each point's
// Fallback.
func (y *YearlyAverage) Reason() string {
	return fmt.Sprintf("no hourly history of zone %q: its %d yearly average for every hour", y.zone, y.year)
}

// Predict implements Model: the average for every hour, whatever recent.
func (y *YearlyAverage) Predict(_ Series, hours int) []float64 {
	out := make([]float64, hours)
	for i := range out {
		out[i] = y.grams
	}
	return out
}
