package carbon

import (
	"context"
	"errors"
	"sort"
	"time"
)

// Errors a Source returns; callers test them with errors.Is.
var (
	// ErrUnknownZone means the source has no data for the grid zone at all
	// (not configured, not covered by the service or the dataset).
	ErrUnknownZone = errors.New("unknown grid zone")
	// ErrNoData means the source knows the zone but holds no intensity for
	// the requested time or horizon.
	ErrNoData = errors.New("no carbon intensity for the requested time")
)

// Kind says how a Point's intensity was obtained.
type Kind string

// Kinds of Point.
const (
	// Measured is an hour the source reports from the grid operators' data.
	Measured Kind = "measured"
	// Estimated is a past or present hour the source estimated (missing or
	// late operator data, or the service's nowcast).
	Estimated Kind = "estimated"
	// Forecast is a predicted future hour.
	Forecast Kind = "forecast"
	// Replay is a recorded hour of the offline dataset standing in for
	// another time (the same hour of the year in a recorded year).
	Replay Kind = "replay"
	// YearlyAverage is a zone's yearly average, used for every hour when no
	// hourly data is known.
	YearlyAverage Kind = "yearly-average"
)

// Signal says which emissions the intensity counts.
type Signal string

// Signals.
const (
	// Average is the location-based average intensity of the electricity
	// consumed in the zone (Electricity Maps, the offline data).
	Average Signal = "average"
	// Marginal is the intensity of the generator that answers a change in
	// demand (WattTime's MOER). It is not comparable with Average: a
	// decision should not mix the two.
	Marginal Signal = "marginal"
)

// A Point is one hour of one grid zone's carbon intensity.
//
// Every Source aligns its data to whole UTC hours: Time is the start of the
// hour, and the intensity is the mean of the service's values whose time falls
// in that hour (WattTime and the Carbon Aware SDK report every five minutes;
// Electricity Maps and the offline data are hourly already). A first or last
// hour that the service covers only in part is the mean of the part it covers.
type Point struct {
	// Zone is the grid zone (an Electricity Maps zone key, e.g. "DE"), as
	// asked for, whatever the service calls it.
	Zone string `json:"zone"`
	// Time is the start of the hour, in UTC.
	Time time.Time `json:"time"`
	// GramsPerKWh is the intensity in grams of CO2-equivalent per kWh.
	// Sources that report other units convert (WattTime: lbs/MWh).
	GramsPerKWh float64 `json:"gramsPerKWh"`
	// Kind says whether the hour was measured, estimated, forecast or
	// replayed from the offline data.
	Kind Kind `json:"kind"`
	// Signal says whether the intensity is average or marginal.
	Signal Signal `json:"signal"`
	// Source names the source that answered, e.g. "electricitymaps" or
	// "offline".
	Source string `json:"source"`
	// Fallback, when not empty, says why the preferred source did not
	// answer, e.g. "electricitymaps: GET /v3/carbon-intensity/latest
	// answered 429 Too Many Requests".
	Fallback string `json:"fallback,omitempty"`
}

// A Source reads hourly carbon intensities of grid zones. Zones are
// Electricity Maps zone keys; a source whose service names regions otherwise
// (WattTime, the Carbon Aware SDK) maps them and reports the zone asked for.
//
// Implementations are safe for concurrent use. Errors name the source and
// what it asked for, wrap ErrUnknownZone or ErrNoData where those apply, and
// wrap the context's error when the context ends.
type Source interface {
	// Name identifies the source in points, decisions and logs.
	Name() string
	// Latest returns the intensity of the current hour (or, when the
	// service has not published it yet, the most recent hour it has).
	Latest(ctx context.Context, zone string) (Point, error)
	// History returns the hours that start in [Hour(from), to), oldest
	// first. Hours the source does not know are left out, not filled.
	History(ctx context.Context, zone string, from, to time.Time) ([]Point, error)
	// Forecast returns the hours from the current hour until now plus
	// horizon, oldest first. Its points have Kind Forecast, or Replay when
	// the offline data stand in for a forecast.
	Forecast(ctx context.Context, zone string, horizon time.Duration) ([]Point, error)
}

// Hour returns the start of the UTC hour that holds t.
func Hour(t time.Time) time.Time {
	return t.UTC().Truncate(time.Hour)
}

// Hourly aligns points to whole UTC hours: points of one zone whose times
// fall in the same hour become one point at the hour's start whose intensity
// is their mean. The other fields come from the hour's first point, except
// Kind: an hour with any estimated part is Estimated. The result is sorted by
// zone, then time.
func Hourly(points []Point) []Point {
	type key struct {
		zone string
		hour int64
	}
	sums := map[key]*struct {
		p   Point
		sum float64
		n   int
	}{}
	var keys []key
	for _, p := range points {
		k := key{p.Zone, Hour(p.Time).Unix()}
		s, ok := sums[k]
		if !ok {
			s = &struct {
				p   Point
				sum float64
				n   int
			}{p: p}
			s.p.Time = Hour(p.Time)
			sums[k] = s
			keys = append(keys, k)
		}
		s.sum += p.GramsPerKWh
		s.n++
		if p.Kind == Estimated && s.p.Kind == Measured {
			s.p.Kind = Estimated
		}
	}
	out := make([]Point, 0, len(keys))
	for _, k := range keys {
		s := sums[k]
		s.p.GramsPerKWh = s.sum / float64(s.n)
		out = append(out, s.p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Zone != out[j].Zone {
			return out[i].Zone < out[j].Zone
		}
		return out[i].Time.Before(out[j].Time)
	})
	return out
}

// Between returns the points whose Time lies in [Hour(from), to), in their
// order.
func Between(points []Point, from, to time.Time) []Point {
	from = Hour(from)
	var out []Point
	for _, p := range points {
		if !p.Time.Before(from) && p.Time.Before(to) {
			out = append(out, p)
		}
	}
	return out
}
