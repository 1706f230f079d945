package carbon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// Default cache lifetimes of a Chain.
const (
	// DefaultLatestTTL keeps a zone's current hour: services publish a new
	// value every 5 to 60 minutes.
	DefaultLatestTTL = 5 * time.Minute
	// DefaultHistoryTTL keeps past hours, which change only when a service
	// revises its estimates.
	DefaultHistoryTTL = 24 * time.Hour
	// DefaultForecastTTL keeps a forecast; services refresh theirs every
	// 5 to 60 minutes.
	DefaultForecastTTL = 30 * time.Minute
	// DefaultFailureTTL is how long a source that failed is not asked again
	// (the chain answers from the next one, with the same reason).
	DefaultFailureTTL = time.Minute
)

// A Tier is one source of a Chain with its request budget.
type Tier struct {
	// Source answers.
	Source Source
	// Limiter, when set, bounds the requests sent to the source; a request
	// over the budget is not sent and the next tier answers.
	Limiter *rate.Limiter
	// Timeout, when set, bounds each call.
	Timeout time.Duration
}

// ChainConfig configures a Chain.
type ChainConfig struct {
	// Tiers are asked in order; the last is usually the offline data.
	Tiers []Tier
	// Clock tells the time: cache ages, the current hour, rate budgets.
	// The real clock when nil.
	Clock clock.PassiveClock
	// LatestTTL, HistoryTTL, ForecastTTL and FailureTTL are the cache
	// lifetimes; the defaults above when zero.
	LatestTTL, HistoryTTL, ForecastTTL, FailureTTL time.Duration
}

// Chain is a Source that asks its tiers in order, caches what they answer
// per (source, zone, kind, hour), keeps each tier within its request budget,
// and falls back to the next tier when one fails. Every point it returns
// names the source that answered, and Fallback says why the tiers before it
// did not, e.g. "electricitymaps: GET /v3/carbon-intensity/latest answered
// 429 Too Many Requests", so that a decision can say which data it used.
type Chain struct {
	tiers []Tier
	clock clock.PassiveClock
	ttl   map[cacheKind]time.Duration

	mu      sync.Mutex
	cache   map[cacheKey]cacheEntry
	failing map[string]failure
}

var _ Source = &Chain{}

type cacheKind string

const (
	kindLatest   cacheKind = "latest"
	kindHistory  cacheKind = "history"
	kindForecast cacheKind = "forecast"
)

// cacheKey is one source's answer for a zone, kind and hour: the current
// hour for latest and forecast, the hour of the point for history.
type cacheKey struct {
	source, zone string
	kind         cacheKind
	hour         int64
	horizon      time.Duration
}

type cacheEntry struct {
	points []Point
	at     time.Time
}

type failure struct {
	reason string
	at     time.Time
}

// NewChain validates cfg and returns a Chain.
func NewChain(cfg ChainConfig) (*Chain, error) {
	if len(cfg.Tiers) == 0 {
		return nil, errors.New("carbon chain: tiers is empty: give at least one source (the offline data)")
	}
	seen := map[string]bool{}
	for i, t := range cfg.Tiers {
		if t.Source == nil {
			return nil, fmt.Errorf("carbon chain: tiers[%d].source is nil", i)
		}
		if seen[t.Source.Name()] {
			return nil, fmt.Errorf("carbon chain: tiers[%d]: source %q appears twice", i, t.Source.Name())
		}
		seen[t.Source.Name()] = true
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	or := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	return &Chain{
		tiers: cfg.Tiers,
		clock: clk,
		ttl: map[cacheKind]time.Duration{
			kindLatest:   or(cfg.LatestTTL, DefaultLatestTTL),
			kindHistory:  or(cfg.HistoryTTL, DefaultHistoryTTL),
			kindForecast: or(cfg.ForecastTTL, DefaultForecastTTL),
			"failure":    or(cfg.FailureTTL, DefaultFailureTTL),
		},
		cache:   map[cacheKey]cacheEntry{},
		failing: map[string]failure{},
	}, nil
}

// Name implements Source: the tiers' names in order, e.g.
// "electricitymaps>offline".
func (c *Chain) Name() string {
	names := make([]string, len(c.tiers))
	for i, t := range c.tiers {
		names[i] = t.Source.Name()
	}
	return strings.Join(names, ">")
}

// Latest implements Source.
func (c *Chain) Latest(ctx context.Context, zone string) (Point, error) {
	now := c.clock.Now()
	pts, err := c.ask(ctx, kindLatest, zone, func(ctx context.Context, t Tier) ([]Point, error) {
		key := cacheKey{source: t.Source.Name(), zone: zone, kind: kindLatest, hour: Hour(now).Unix()}
		if pts, ok := c.cached(key, now); ok {
			return pts, nil
		}
		if err := c.allow(t, now); err != nil {
			return nil, err
		}
		p, err := t.Source.Latest(ctx, zone)
		if err != nil {
			return nil, err
		}
		c.store(key, []Point{p}, now)
		return []Point{p}, nil
	})
	if err != nil {
		return Point{}, err
	}
	return pts[0], nil
}

// History implements Source. Hours cached for a tier are served from the
// cache when the whole range is; otherwise the tier is asked for the range.
func (c *Chain) History(ctx context.Context, zone string, from, to time.Time) ([]Point, error) {
	now := c.clock.Now()
	from = Hour(from)
	if !to.After(from) {
		return nil, nil
	}
	return c.ask(ctx, kindHistory, zone, func(ctx context.Context, t Tier) ([]Point, error) {
		if pts, ok := c.cachedRange(t.Source.Name(), zone, from, to, now); ok {
			return pts, nil
		}
		if err := c.allow(t, now); err != nil {
			return nil, err
		}
		pts, err := t.Source.History(ctx, zone, from, to)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		for _, p := range pts {
			c.cache[cacheKey{source: t.Source.Name(), zone: zone, kind: kindHistory, hour: p.Time.Unix()}] = cacheEntry{points: []Point{p}, at: now}
		}
		c.mu.Unlock()
		return pts, nil
	})
}

// Forecast implements Source.
func (c *Chain) Forecast(ctx context.Context, zone string, horizon time.Duration) ([]Point, error) {
	now := c.clock.Now()
	return c.ask(ctx, kindForecast, zone, func(ctx context.Context, t Tier) ([]Point, error) {
		key := cacheKey{source: t.Source.Name(), zone: zone, kind: kindForecast, hour: Hour(now).Unix(), horizon: horizon}
		if pts, ok := c.cached(key, now); ok {
			return pts, nil
		}
		if err := c.allow(t, now); err != nil {
			return nil, err
		}
		pts, err := t.Source.Forecast(ctx, zone, horizon)
		if err != nil {
			return nil, err
		}
		c.store(key, pts, now)
		return pts, nil
	})
}

// ask runs call on each tier in order until one answers, and marks the
// answer with the reasons of the tiers that did not.
func (c *Chain) ask(ctx context.Context, kind cacheKind, zone string, call func(context.Context, Tier) ([]Point, error)) ([]Point, error) {
	var reasons []string
	var errs []error
	for _, t := range c.tiers {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("carbon chain: %s of zone %q: %w", kind, zone, err)
		}
		name := t.Source.Name()
		now := c.clock.Now()
		if reason, ok := c.failingNow(name, now); ok {
			reasons = append(reasons, reason)
			errs = append(errs, errors.New(reason))
			continue
		}
		callCtx := ctx
		if t.Timeout > 0 {
			var cancel context.CancelFunc
			callCtx, cancel = context.WithTimeout(ctx, t.Timeout)
			defer cancel()
		}
		pts, err := call(callCtx, t)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("carbon chain: %s of zone %q: %w", kind, zone, errors.Join(err, ctx.Err()))
			}
			reason := err.Error()
			if !strings.HasPrefix(reason, name) {
				reason = name + ": " + reason
			}
			// A zone the source does not cover says nothing of its health.
			if !errors.Is(err, ErrUnknownZone) && !errors.Is(err, ErrNoData) && !errors.Is(err, errOverBudget) {
				c.fail(name, reason, now)
			}
			reasons = append(reasons, reason)
			errs = append(errs, err)
			continue
		}
		out := make([]Point, len(pts))
		copy(out, pts)
		if len(reasons) > 0 {
			why := strings.Join(reasons, "; ")
			for i := range out {
				out[i].Fallback = why
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("carbon chain: no source answered %s of zone %q: %w", kind, zone, errors.Join(errs...))
}

// errOverBudget marks a request a tier's limiter did not allow.
var errOverBudget = errors.New("request budget spent")

func (c *Chain) allow(t Tier, now time.Time) error {
	if t.Limiter == nil || t.Limiter.AllowN(now, 1) {
		return nil
	}
	return fmt.Errorf("%s: not asked: %w (%g requests/s, burst %d)", t.Source.Name(), errOverBudget, float64(t.Limiter.Limit()), t.Limiter.Burst())
}

func (c *Chain) cached(key cacheKey, now time.Time) ([]Point, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.cache[key]
	if !ok || now.Sub(e.at) >= c.ttl[key.kind] {
		return nil, false
	}
	return e.points, true
}

func (c *Chain) cachedRange(source, zone string, from, to, now time.Time) ([]Point, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Point
	for t := from; t.Before(to); t = t.Add(time.Hour) {
		e, ok := c.cache[cacheKey{source: source, zone: zone, kind: kindHistory, hour: t.Unix()}]
		if !ok || now.Sub(e.at) >= c.ttl[kindHistory] {
			return nil, false
		}
		out = append(out, e.points...)
	}
	return out, true
}

func (c *Chain) store(key cacheKey, pts []Point, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cache[key] = cacheEntry{points: pts, at: now}
	c.pruneLocked(now)
}

// pruneLocked drops expired entries once the cache has grown, so that a
// long-running controller does not keep every hour it ever asked for.
func (c *Chain) pruneLocked(now time.Time) {
	if len(c.cache) < 1<<16 {
		return
	}
	for k, e := range c.cache {
		if now.Sub(e.at) >= c.ttl[k.kind] {
			delete(c.cache, k)
		}
	}
}

func (c *Chain) fail(source, reason string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failing[source] = failure{reason: reason, at: now}
}

func (c *Chain) failingNow(source string, now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.failing[source]
	if !ok || now.Sub(f.at) >= c.ttl["failure"] {
		return "", false
	}
	return f.reason + fmt.Sprintf(" (at %s; not asked again until %s)", f.at.UTC().Format(timeLayout), f.at.Add(c.ttl["failure"]).UTC().Format(timeLayout)), true
}
