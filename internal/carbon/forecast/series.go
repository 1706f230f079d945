package forecast

import (
	"fmt"
	"math"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// A Series is one zone's hourly intensities without holes in the index:
// Values[i] is the intensity in gCO2eq/kWh of the UTC hour First + i hours,
// NaN where the hour is not known.
type Series struct {
	Zone   string
	First  time.Time
	Values []float64
	// Signal is the signal of the history's points (Average when empty);
	// forecasts keep it.
	Signal carbon.Signal
}

// FromPoints builds the zone's Series from points in any order: each is
// aligned to its UTC hour, points of the same hour are averaged, hours
// between the first and the last that no point covers are NaN. Points of
// other zones are an error, so that a mixed-up history cannot pass for one
// zone's.
func FromPoints(zone string, points []carbon.Point) (Series, error) {
	s := Series{Zone: zone}
	if len(points) == 0 {
		return s, nil
	}
	first, last := carbon.Hour(points[0].Time), carbon.Hour(points[0].Time)
	s.Signal = points[0].Signal
	for i, p := range points {
		if p.Zone != zone {
			return Series{}, fmt.Errorf("forecast: point %d of the history of zone %q is of zone %q", i, zone, p.Zone)
		}
		if p.Signal != s.Signal {
			return Series{}, fmt.Errorf("forecast: point %d of the history of zone %q has signal %q, the first %q: a forecast cannot mix them", i, zone, p.Signal, s.Signal)
		}
		if math.IsNaN(p.GramsPerKWh) || math.IsInf(p.GramsPerKWh, 0) {
			return Series{}, fmt.Errorf("forecast: point %d of the history of zone %q (%s) has intensity %v, want a finite number", i, zone, p.Time.UTC().Format(time.RFC3339), p.GramsPerKWh)
		}
		h := carbon.Hour(p.Time)
		if h.Before(first) {
			first = h
		}
		if h.After(last) {
			last = h
		}
	}
	n := int(last.Sub(first)/time.Hour) + 1
	sums, counts := make([]float64, n), make([]int, n)
	for _, p := range points {
		i := int(carbon.Hour(p.Time).Sub(first) / time.Hour)
		sums[i] += p.GramsPerKWh
		counts[i]++
	}
	s.First, s.Values = first, sums
	for i := range sums {
		if counts[i] == 0 {
			s.Values[i] = math.NaN()
		} else {
			s.Values[i] /= float64(counts[i])
		}
	}
	return s, nil
}

// Len returns the number of hours from First to the last hour, known or not.
func (s Series) Len() int { return len(s.Values) }

// Last returns the start of the series' last hour.
func (s Series) Last() time.Time {
	return s.First.Add(time.Duration(len(s.Values)-1) * time.Hour)
}

// Index returns the position of the hour that holds t; it may lie outside
// [0, Len()).
func (s Series) Index(t time.Time) int {
	return int(carbon.Hour(t).Sub(s.First) / time.Hour)
}

// Known returns the number of hours with a value.
func (s Series) Known() int {
	n := 0
	for _, v := range s.Values {
		if !math.IsNaN(v) {
			n++
		}
	}
	return n
}

// Until returns the series' hours that start before t (sharing Values).
func (s Series) Until(t time.Time) Series {
	i := max(0, min(s.Index(t), len(s.Values)))
	return Series{Zone: s.Zone, First: s.First, Values: s.Values[:i], Signal: s.Signal}
}

// tail returns the series' last n hours (all of them when it has fewer),
// sharing Values.
func (s Series) tail(n int) Series {
	if len(s.Values) <= n {
		return s
	}
	i := len(s.Values) - n
	return Series{Zone: s.Zone, First: s.First.Add(time.Duration(i) * time.Hour), Values: s.Values[i:], Signal: s.Signal}
}

// Without returns a copy of the series whose hours in [from, to) are NaN:
// the training set of a hold-out evaluation.
func (s Series) Without(from, to time.Time) Series {
	out := Series{Zone: s.Zone, First: s.First, Values: append([]float64(nil), s.Values...), Signal: s.Signal}
	for i := max(0, s.Index(from)); i < min(len(out.Values), s.Index(to)); i++ {
		out.Values[i] = math.NaN()
	}
	return out
}

// hourOfWeek returns the hour of the week (0 = Monday 00:00 UTC) of the
// series' hour i.
func (s Series) hourOfWeek(i int) int {
	t := s.First.Add(time.Duration(i) * time.Hour)
	wd := (int(t.Weekday()) + 6) % 7
	return wd*24 + t.Hour()
}

// points turns the values predicted for the hours after the hour after into
// forecast points of the series' zone and signal, named after the model.
func points(s Series, after time.Time, model string, values []float64, fallback string) []carbon.Point {
	signal := s.Signal
	if signal == "" {
		signal = carbon.Average
	}
	out := make([]carbon.Point, len(values))
	for i, v := range values {
		out[i] = carbon.Point{
			Zone:        s.Zone,
			Time:        after.Add(time.Duration(i+1) * time.Hour),
			GramsPerKWh: v,
			Kind:        carbon.Forecast,
			Signal:      signal,
			Source:      SourcePrefix + model,
			Fallback:    fallback,
		}
	}
	return out
}
