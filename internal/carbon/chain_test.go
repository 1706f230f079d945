package carbon_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/apiclient"
	"github.com/meridian-dev/meridian/internal/carbon/electricitymaps"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
)

var now = time.Date(2026, 11, 23, 12, 20, 0, 0, time.UTC)

// emaps is a local Electricity Maps v3 service for zone DE whose answers
// the test switches between healthy and failing.
type emaps struct {
	requests atomic.Int32
	status   atomic.Int32 // 0: healthy
	clock    *clocktesting.FakePassiveClock
}

func (s *emaps) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if code := int(s.status.Load()); code != 0 {
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "3600")
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"error":"Too many requests"}`))
		return
	}
	if r.URL.Query().Get("zone") != "DE" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"Zone does not exist"}`))
		return
	}
	h := carbon.Hour(s.clock.Now())
	var body any
	switch r.URL.Path {
	case "/v3/carbon-intensity/latest":
		body = map[string]any{"zone": "DE", "carbonIntensity": 400, "datetime": h, "isEstimated": false}
	case "/v3/carbon-intensity/history":
		var hs []any
		for t := h.Add(-23 * time.Hour); !t.After(h); t = t.Add(time.Hour) {
			hs = append(hs, map[string]any{"zone": "DE", "carbonIntensity": 400, "datetime": t, "isEstimated": false})
		}
		body = map[string]any{"zone": "DE", "history": hs}
	case "/v3/carbon-intensity/forecast":
		var fs []any
		for t := h; t.Before(h.Add(24 * time.Hour)); t = t.Add(time.Hour) {
			fs = append(fs, map[string]any{"carbonIntensity": 410, "datetime": t})
		}
		body = map[string]any{"zone": "DE", "forecast": fs, "updatedAt": h}
	default:
		http.NotFound(w, r)
		return
	}
	_ = json.NewEncoder(w).Encode(body)
}

func newChain(t *testing.T, limiter *rate.Limiter) (*carbon.Chain, *emaps, *clocktesting.FakePassiveClock) {
	t.Helper()
	clk := clocktesting.NewFakePassiveClock(now)
	svc := &emaps{clock: clk}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	em, err := electricitymaps.New(electricitymaps.Config{BaseURL: srv.URL, Token: "t", Clock: clk,
		Options: apiclient.Options{Sleep: func(context.Context, time.Duration) error { return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := offline.Default()
	if err != nil {
		t.Fatal(err)
	}
	c, err := carbon.NewChain(carbon.ChainConfig{
		Tiers: []carbon.Tier{{Source: em, Limiter: limiter}, {Source: offline.New(data, clk)}},
		Clock: clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, svc, clk
}

// answer is what a test checks of a chain's answer.
type answer struct {
	Source, Fallback string
	Kind             carbon.Kind
	Requests         int
}

func TestChain(t *testing.T) {
	const tooMany = "electricitymaps: GET /v3/carbon-intensity/latest answered 429 Too Many Requests: \"Too many requests\" (Retry-After 1h0m0s is longer than the 30s this client waits)"
	latest := func(t *testing.T, c *carbon.Chain) (carbon.Point, error) { return c.Latest(t.Context(), "DE") }
	type step struct {
		advance time.Duration
		status  int
		call    func(t *testing.T, c *carbon.Chain) (carbon.Point, error)
		want    answer
	}
	tests := []struct {
		name    string
		limiter *rate.Limiter
		steps   []step
	}{
		{
			name: "the service answers, then from the cache until it expires",
			steps: []step{
				{call: latest, want: answer{Source: "electricitymaps", Kind: carbon.Measured, Requests: 1}},
				{advance: time.Minute, call: latest, want: answer{Source: "electricitymaps", Kind: carbon.Measured, Requests: 1}},
				{advance: carbon.DefaultLatestTTL, call: latest, want: answer{Source: "electricitymaps", Kind: carbon.Measured, Requests: 2}},
			},
		},
		{
			name: "429 falls back to the offline data and says why; the service rests, then is asked again",
			steps: []step{
				{status: 429, call: latest, want: answer{Source: "offline", Fallback: tooMany, Kind: carbon.Replay, Requests: 1}},
				{advance: 30 * time.Second, status: 429, call: latest,
					want: answer{Source: "offline", Fallback: tooMany + " (at 2026-11-23T12:20:00Z; not asked again until 2026-11-23T12:21:00Z)", Kind: carbon.Replay, Requests: 1}},
				{advance: 31 * time.Second, call: latest, want: answer{Source: "electricitymaps", Kind: carbon.Measured, Requests: 2}},
			},
		},
		{
			name: "5xx falls back after the client's retries",
			steps: []step{
				{status: 503, call: func(t *testing.T, c *carbon.Chain) (carbon.Point, error) {
					pts, err := c.Forecast(t.Context(), "DE", 3*time.Hour)
					if err != nil {
						return carbon.Point{}, err
					}
					return pts[0], nil
				}, want: answer{Source: "offline", Kind: carbon.Replay, Requests: 4,
					Fallback: "electricitymaps: GET /v3/carbon-intensity/forecast answered 503 Service Unavailable: \"Too many requests\""}},
			},
		},
		{
			name:    "over the request budget the next tier answers",
			limiter: rate.NewLimiter(rate.Every(time.Hour), 1),
			steps: []step{
				{call: latest, want: answer{Source: "electricitymaps", Kind: carbon.Measured, Requests: 1}},
				{call: func(t *testing.T, c *carbon.Chain) (carbon.Point, error) {
					pts, err := c.History(t.Context(), "DE", now.Add(-2*time.Hour), now)
					if err != nil {
						return carbon.Point{}, err
					}
					return pts[0], nil
				}, want: answer{Source: "offline", Kind: carbon.Replay, Requests: 1,
					Fallback: "electricitymaps: not asked: request budget spent (0.0002777777777777778 requests/s, burst 1)"}},
			},
		},
		{
			name: "history is cached per hour",
			steps: []step{
				{call: func(t *testing.T, c *carbon.Chain) (carbon.Point, error) {
					pts, err := c.History(t.Context(), "DE", now.Add(-5*time.Hour), now)
					return pts[0], err
				}, want: answer{Source: "electricitymaps", Kind: carbon.Measured, Requests: 1}},
				{advance: time.Hour, call: func(t *testing.T, c *carbon.Chain) (carbon.Point, error) {
					pts, err := c.History(t.Context(), "DE", now.Add(-3*time.Hour), now.Add(-time.Hour))
					return pts[0], err
				}, want: answer{Source: "electricitymaps", Kind: carbon.Measured, Requests: 1}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, svc, clk := newChain(t, tc.limiter)
			for i, s := range tc.steps {
				clk.SetTime(clk.Now().Add(s.advance))
				svc.status.Store(int32(s.status))
				p, err := s.call(t, c)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				got := answer{Source: p.Source, Fallback: p.Fallback, Kind: p.Kind, Requests: int(svc.requests.Load())}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("step %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestChainErrors(t *testing.T) {
	c, _, _ := newChain(t, nil)
	_, err := c.Latest(t.Context(), "XX-NOWHERE")
	if !errors.Is(err, carbon.ErrUnknownZone) || !strings.Contains(err.Error(), `no source answered latest of zone "XX-NOWHERE"`) {
		t.Errorf("Latest(unknown zone) error = %v, want ErrUnknownZone from every tier", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Forecast(ctx, "DE", time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Forecast(cancelled) error = %v, want context.Canceled and no fall-back", err)
	}
	if got := c.Name(); got != "electricitymaps>offline" {
		t.Errorf("Name() = %q, want electricitymaps>offline", got)
	}
	if _, err := carbon.NewChain(carbon.ChainConfig{}); err == nil || !strings.Contains(err.Error(), "tiers is empty") {
		t.Errorf("NewChain(no tiers) error = %v, want one naming tiers", err)
	}
}

// TestChainConcurrent runs callers at once; `go test -race` checks the
// chain's locking.
func TestChainConcurrent(t *testing.T) {
	c, svc, _ := newChain(t, rate.NewLimiter(rate.Inf, 1))
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			var err error
			switch i % 3 {
			case 0:
				_, err = c.Latest(t.Context(), "DE")
			case 1:
				_, err = c.Forecast(t.Context(), "NO", 6*time.Hour)
			default:
				_, err = c.History(t.Context(), "DE", now.Add(-6*time.Hour), now)
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := svc.requests.Load(); n < 2 {
		t.Errorf("the service got %d requests, want at least one per kind it covers", n)
	}
}
