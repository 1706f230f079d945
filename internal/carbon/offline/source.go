package offline

import (
	"context"
	"fmt"
	"time"

	"k8s.io/utils/clock"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// Name is the source's name in points and decisions.
const Name = "offline"

// replayPeriod keeps weekday and time of day when a time is replayed.
const replayPeriod = 52 * 7 * 24 * time.Hour

// Source is a carbon.Source over a Dataset; see the package documentation
// for how times map to recorded hours.
type Source struct {
	data  *Dataset
	clock clock.PassiveClock
}

var _ carbon.Source = &Source{}

// New returns a Source over data that reads the time from clk (the real
// clock when nil).
func New(data *Dataset, clk clock.PassiveClock) *Source {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Source{data: data, clock: clk}
}

// Name implements carbon.Source.
func (s *Source) Name() string { return Name }

// Recorded returns the time whose recorded hour answers for t in the zone's
// series: t itself inside the record, else t moved by whole 52-week periods
// to the latest such time inside it.
func Recorded(series *Series, t time.Time) time.Time {
	t = carbon.Hour(t)
	first, last := series.First, series.Last()
	switch {
	case t.After(last):
		n := (t.Sub(last) + replayPeriod - 1) / replayPeriod
		t = t.Add(-n * replayPeriod)
	case t.Before(first):
		n := (first.Sub(t) + replayPeriod - 1) / replayPeriod
		t = t.Add(n * replayPeriod)
		// Move to the latest such time inside the record.
		for t.Add(replayPeriod).Before(last) || t.Add(replayPeriod).Equal(last) {
			t = t.Add(replayPeriod)
		}
	}
	return t
}

// at answers one hour of the zone; ok is false in a gap of the record.
func (s *Source) at(zone string, t time.Time, forecast bool) (carbon.Point, bool, error) {
	t = carbon.Hour(t)
	p := carbon.Point{Zone: zone, Time: t, Signal: carbon.Average, Source: Name}
	series, ok, err := s.data.Hourly(zone)
	if err != nil {
		return carbon.Point{}, false, err
	}
	if ok {
		rec := Recorded(series, t)
		g, est, ok := series.At(rec)
		if !ok {
			return carbon.Point{}, false, nil
		}
		p.GramsPerKWh = g
		switch {
		case forecast || !rec.Equal(t):
			p.Kind = carbon.Replay
		case est:
			p.Kind = carbon.Estimated
		default:
			p.Kind = carbon.Measured
		}
		return p, true, nil
	}
	g, _, ok := s.data.Yearly(zone, t.Year())
	if !ok {
		return carbon.Point{}, false, fmt.Errorf("%s: zone %q has neither hourly data nor a yearly average: %w", Name, zone, carbon.ErrUnknownZone)
	}
	p.GramsPerKWh, p.Kind = g, carbon.YearlyAverage
	return p, true, nil
}

// Latest implements carbon.Source: the hour that holds now.
func (s *Source) Latest(ctx context.Context, zone string) (carbon.Point, error) {
	if err := ctx.Err(); err != nil {
		return carbon.Point{}, fmt.Errorf("%s: %w", Name, err)
	}
	now := s.clock.Now()
	p, ok, err := s.at(zone, now, false)
	if err != nil {
		return carbon.Point{}, err
	}
	if !ok {
		return carbon.Point{}, fmt.Errorf("%s: zone %q has no recorded hour for %s: %w", Name, zone, carbon.Hour(now).Format(time.RFC3339), carbon.ErrNoData)
	}
	return p, nil
}

// History implements carbon.Source.
func (s *Source) History(ctx context.Context, zone string, from, to time.Time) ([]carbon.Point, error) {
	return s.hours(ctx, zone, from, to, false)
}

// Forecast implements carbon.Source: the replayed hours from the current
// hour until now plus horizon, all of Kind Replay.
func (s *Source) Forecast(ctx context.Context, zone string, horizon time.Duration) ([]carbon.Point, error) {
	now := s.clock.Now()
	out, err := s.hours(ctx, zone, now, now.Add(horizon), true)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: zone %q has no recorded hour after %s: %w", Name, zone, carbon.Hour(now).Format(time.RFC3339), carbon.ErrNoData)
	}
	return out, nil
}

func (s *Source) hours(ctx context.Context, zone string, from, to time.Time, forecast bool) ([]carbon.Point, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	var out []carbon.Point
	for t := carbon.Hour(from); t.Before(to); t = t.Add(time.Hour) {
		p, ok, err := s.at(zone, t, forecast)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}
