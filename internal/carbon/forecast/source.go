package forecast

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// Defaults of a Source.
const (
	// DefaultTraining is how much history a Source fits a zone's model on:
	// a year, so every season has been seen once.
	DefaultTraining = 365 * 24 * time.Hour
	// DefaultRefit is how long a Source uses a fitted model before fitting
	// again on the newer history.
	DefaultRefit = 24 * time.Hour
)

// SourceName is the name of a Source.
const SourceName = "forecast"

// Source is a carbon.Source whose forecasts are this package's: Latest and
// History come from Base, and Forecast fits the best model Base's history of
// the zone allows (refitted every Refit) and forecasts from the zone's
// latest hours. It gives a forecast to a zone whose service has none: the
// offline data, whose own Forecast is a replay of a recorded year.
//
// This is the one part of the package that does I/O (through Base) and
// reads a clock; the models themselves stay pure.
type Source struct {
	// Base answers the history.
	Base carbon.Source
	// Clock gives the time of Forecast; the real clock when nil.
	Clock clock.PassiveClock
	// Training is the history a fit reads; DefaultTraining when zero.
	Training time.Duration
	// Refit is how long a fitted model lasts; DefaultRefit when zero.
	Refit time.Duration
	// Yearly, when set, gives a zone's yearly average (year asked for,
	// grams and the year used): the fall-back of a zone Base has too little
	// or no history of. offline.Dataset.Yearly is one.
	Yearly func(zone string, year int) (grams float64, used int, ok bool)

	mu     sync.Mutex
	models map[string]fitted
}

type fitted struct {
	model Model
	at    time.Time
}

var _ carbon.Source = &Source{}

// Name implements carbon.Source.
func (s *Source) Name() string { return SourceName }

// Latest implements carbon.Source: Base's.
func (s *Source) Latest(ctx context.Context, zone string) (carbon.Point, error) {
	return s.Base.Latest(ctx, zone)
}

// History implements carbon.Source: Base's.
func (s *Source) History(ctx context.Context, zone string, from, to time.Time) ([]carbon.Point, error) {
	return s.Base.History(ctx, zone, from, to)
}

// Forecast implements carbon.Source: the hours from the current one until
// now plus horizon, of Kind Forecast, Source "forecast/<model>".
func (s *Source) Forecast(ctx context.Context, zone string, horizon time.Duration) ([]carbon.Point, error) {
	now := s.now()
	m, err := s.model(ctx, zone, now)
	if err != nil {
		return nil, err
	}
	recent := Series{Zone: zone}
	if _, ok := m.(*YearlyAverage); !ok {
		pts, err := s.Base.History(ctx, zone, now.Add(-Lookback*time.Hour), now)
		if err != nil {
			return nil, fmt.Errorf("%s: reading the recent hours of zone %q: %w", SourceName, zone, err)
		}
		if recent, err = FromPoints(zone, hourly(pts)); err != nil {
			return nil, fmt.Errorf("%s: %w", SourceName, err)
		}
		if recent.Known() == 0 {
			return nil, fmt.Errorf("%s: zone %q has no hour in the last %d: %w", SourceName, zone, Lookback, carbon.ErrNoData)
		}
	}
	return Forecast(m, recent, now, horizon)
}

// model returns the zone's fitted model, fitting it when it is missing or
// older than Refit.
func (s *Source) model(ctx context.Context, zone string, now time.Time) (Model, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	refit := s.Refit
	if refit == 0 {
		refit = DefaultRefit
	}
	if f, ok := s.models[zone]; ok && now.Sub(f.at) < refit && !now.Before(f.at) {
		return f.model, nil
	}
	training := s.Training
	if training == 0 {
		training = DefaultTraining
	}
	m, err := s.fit(ctx, zone, now.Add(-training), now)
	if err != nil {
		return nil, err
	}
	if s.models == nil {
		s.models = map[string]fitted{}
	}
	s.models[zone] = fitted{model: m, at: now}
	return m, nil
}

func (s *Source) fit(ctx context.Context, zone string, from, to time.Time) (Model, error) {
	pts, err := s.Base.History(ctx, zone, from, to)
	if err != nil && !errors.Is(err, carbon.ErrUnknownZone) && !errors.Is(err, carbon.ErrNoData) {
		return nil, fmt.Errorf("%s: reading the history of zone %q to fit its model: %w", SourceName, zone, err)
	}
	history := Series{Zone: zone}
	if err == nil {
		if history, err = FromPoints(zone, hourly(pts)); err != nil {
			return nil, fmt.Errorf("%s: %w", SourceName, err)
		}
	}
	m, ferr := Fit(history)
	if ferr == nil {
		return m, nil
	}
	if s.Yearly != nil {
		if g, year, ok := s.Yearly(zone, to.Year()); ok {
			return NewYearlyAverage(zone, g, year), nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SourceName, err)
	}
	return nil, fmt.Errorf("%s: %w", SourceName, ferr)
}

// hourly drops the points that are not the zone's own hours: a yearly
// average repeated for every hour (the offline data's answer for a zone
// without hourly data) would fit a flat "regression" that hides the
// fall-back.
func hourly(pts []carbon.Point) []carbon.Point {
	out := pts[:0:0]
	for _, p := range pts {
		if p.Kind != carbon.YearlyAverage {
			out = append(out, p)
		}
	}
	return out
}

func (s *Source) now() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock.Now()
}
