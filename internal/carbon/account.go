package carbon

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Realised is what a finished run emitted, from the intensities of the hours
// it really ran: location-based, with the run's power from an EnergyModel.
type Realised struct {
	// Grams is the emissions in grams of CO2-equivalent.
	Grams float64
	// KWh is the energy the run drew.
	KWh float64
	// Hours is how many clock hours the run touched; Known how many of them
	// the points covered. Hours not covered count at the mean of the known
	// ones.
	Hours, Known int
	// Kinds counts the known hours by how they were obtained: measured,
	// estimated, or replayed from the offline data (which stand in for the
	// real grid and make the figure an estimate).
	Kinds map[Kind]int
	// Source names the sources of the known hours, e.g. "electricitymaps".
	Source string
	// Signal is the signal the hours count.
	Signal Signal
}

// Complete reports whether every hour of the run was measured: nothing
// estimated, replayed or missing.
func (r Realised) Complete() bool {
	return r.Known == r.Hours && r.Kinds[Measured] == r.Hours
}

// String says how the figure was obtained, e.g. "5 of 5 hours measured by
// electricitymaps".
func (r Realised) String() string {
	var parts []string
	for _, k := range []Kind{Measured, Estimated, Forecast, Replay, YearlyAverage} {
		if n := r.Kinds[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	if missing := r.Hours - r.Known; missing > 0 {
		parts = append(parts, fmt.Sprintf("%d missing (counted at the mean of the others)", missing))
	}
	s := fmt.Sprintf("%d h: %s", r.Hours, strings.Join(parts, ", "))
	if r.Source != "" {
		s += " from " + r.Source
	}
	return s
}

// Account returns the emissions of a run that drew watts in zone over
// [start, end), from the zone's hourly points (History's answer for the
// run). A run that ends within an hour counts that part of the hour. It fails
// when the run is empty or no point is of the zone.
func Account(points []Point, zone string, watts float64, start, end time.Time) (Realised, error) {
	if !end.After(start) {
		return Realised{}, fmt.Errorf("invalid run [%s, %s): the end must be after the start", start.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	mine := slices.DeleteFunc(slices.Clone(points), func(p Point) bool { return p.Zone != zone })
	s := NewIntensities(mine).series(zone)
	if s == nil {
		return Realised{}, fmt.Errorf("no carbon intensity of zone %q for the run [%s, %s): %w", zone, start.Format(time.RFC3339), end.Format(time.RFC3339), ErrNoData)
	}
	integral, unknown := s.integral(start.Unix(), end.Unix())
	source, _ := s.sources(start.Unix(), end.Unix())
	r := Realised{
		Grams:  watts / 1000 * integral,
		KWh:    watts / 1000 * end.Sub(start).Hours(),
		Hours:  int(Hour(end.Add(-time.Nanosecond)).Sub(Hour(start))/time.Hour) + 1,
		Kinds:  map[Kind]int{},
		Source: source,
		Signal: s.signal,
	}
	r.Known = r.Hours - unknown
	for h := Hour(start); h.Before(end); h = h.Add(time.Hour) {
		i := (h.Unix() - s.start) / 3600
		if i >= 0 && i < int64(len(s.points)) && !s.points[i].Time.IsZero() {
			r.Kinds[s.points[i].Kind]++
		}
	}
	return r, nil
}

// FormatGrams formats grams as statuses and events show them: to a tenth of
// a gram, and to four decimals below 10 g, so that a short run does not read
// 0.
func FormatGrams(g float64) string {
	if g < 10 {
		return strconv.FormatFloat(g, 'f', 4, 64)
	}
	return strconv.FormatFloat(g, 'f', 1, 64)
}

// Grams is g as the API holds it: a quantity, to FormatGrams' precision.
func Grams(g float64) resource.Quantity { return quantity(FormatGrams(g)) }

// Decimal is v with places decimals as a quantity, as the API holds energy
// and power.
func Decimal(v float64, places int) resource.Quantity {
	return quantity(strconv.FormatFloat(v, 'f', places, 64))
}

// quantity is the decimal s as a quantity; zero for what is not one (NaN,
// an infinity), which no accounting yields.
func quantity(s string) resource.Quantity {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}
	}
	return q
}
