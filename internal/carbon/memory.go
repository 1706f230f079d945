package carbon

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Memory is a Source that answers from points held in memory: the
// in-memory implementation used by tests and by the simulator, which feeds it
// recorded hours and forecasts and moves its clock in virtual time.
type Memory struct {
	name  string
	clock clock.PassiveClock

	mu       sync.RWMutex
	actual   map[string][]Point
	forecast map[string][]Point
	err      error
}

var _ Source = &Memory{}

// NewMemory returns an empty Memory source called name that reads the time
// from clk.
func NewMemory(name string, clk clock.PassiveClock) *Memory {
	return &Memory{name: name, clock: clk, actual: map[string][]Point{}, forecast: map[string][]Point{}}
}

// Add records actual hours. Each point is aligned to its hour and takes the
// source's name; a point without Kind is Measured, without Signal Average.
// A later point for the same zone and hour replaces an earlier one.
func (m *Memory) Add(points ...Point) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range points {
		m.actual[p.Zone] = upsert(m.actual[p.Zone], m.normalise(p, Measured))
	}
}

// SetForecast replaces the zone's forecast with points (aligned and named as
// in Add; Kind defaults to Forecast).
func (m *Memory) SetForecast(zone string, points []Point) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var fc []Point
	for _, p := range points {
		p.Zone = zone
		fc = upsert(fc, m.normalise(p, Forecast))
	}
	m.forecast[zone] = fc
}

// SetError makes every call fail with err until it is set to nil: an outage
// of the service the source stands for.
func (m *Memory) SetError(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = err
}

func (m *Memory) normalise(p Point, kind Kind) Point {
	p.Time = Hour(p.Time)
	p.Source = m.name
	if p.Kind == "" {
		p.Kind = kind
	}
	if p.Signal == "" {
		p.Signal = Average
	}
	return p
}

// upsert inserts p into the time-sorted points, replacing a point of the same
// hour.
func upsert(points []Point, p Point) []Point {
	i := sort.Search(len(points), func(i int) bool { return !points[i].Time.Before(p.Time) })
	if i < len(points) && points[i].Time.Equal(p.Time) {
		points[i] = p
		return points
	}
	points = append(points, Point{})
	copy(points[i+1:], points[i:])
	points[i] = p
	return points
}

// Name implements Source.
func (m *Memory) Name() string { return m.name }

// Latest implements Source: the last recorded hour at or before now.
func (m *Memory) Latest(ctx context.Context, zone string) (Point, error) {
	pts, err := m.read(ctx, zone, m.actual)
	if err != nil {
		return Point{}, err
	}
	now := m.clock.Now()
	i := sort.Search(len(pts), func(i int) bool { return pts[i].Time.After(now) })
	if i == 0 {
		return Point{}, fmt.Errorf("%s: latest intensity of zone %q at %s: %w", m.name, zone, now.UTC().Format(timeLayout), ErrNoData)
	}
	return pts[i-1], nil
}

// History implements Source.
func (m *Memory) History(ctx context.Context, zone string, from, to time.Time) ([]Point, error) {
	pts, err := m.read(ctx, zone, m.actual)
	if err != nil {
		return nil, err
	}
	return Between(pts, from, to), nil
}

// Forecast implements Source: the forecast set for the zone, from the
// current hour until now plus horizon.
func (m *Memory) Forecast(ctx context.Context, zone string, horizon time.Duration) ([]Point, error) {
	pts, err := m.read(ctx, zone, m.forecast)
	if err != nil {
		return nil, err
	}
	now := m.clock.Now()
	out := Between(pts, now, now.Add(horizon))
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: forecast of zone %q from %s: %w", m.name, zone, now.UTC().Format(timeLayout), ErrNoData)
	}
	return out, nil
}

func (m *Memory) read(ctx context.Context, zone string, from map[string][]Point) ([]Point, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, m.err)
	}
	_, actual := m.actual[zone]
	_, forecast := m.forecast[zone]
	if !actual && !forecast {
		return nil, fmt.Errorf("%s: zone %q: %w", m.name, zone, ErrUnknownZone)
	}
	pts := from[zone]
	return append([]Point(nil), pts...), nil
}
