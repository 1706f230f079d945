package watttime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/apiclient"
)

var now = time.Date(2026, 11, 23, 12, 20, 0, 0, time.UTC)

// moer is the test service's five-minute MOER in lbs/MWh.
func moer(t time.Time) float64 { return float64(1000 + t.Hour()*100 + t.Minute()) }

// hourMean is the g/kWh mean of the five-minute points in [from, to).
func hourMean(from, to time.Time) float64 {
	var sum float64
	n := 0
	for t := from; t.Before(to); t = t.Add(5 * time.Minute) {
		sum += moer(t)
		n++
	}
	return sum / float64(n) * 0.45359237
}

// service speaks the documented WattTime v3 JSON for region CAISO_NORTH.
type service struct {
	mu       sync.Mutex
	requests []string
	logins   int
	valid    map[string]bool
	// expireAfterUse drops a token after its first data request, as an
	// expiry would.
	expireAfterUse bool
	units          string
	fail           map[int]func(w http.ResponseWriter)
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.requests)
	s.requests = append(s.requests, r.URL.Path+"?"+r.URL.RawQuery)
	if f := s.fail[n]; f != nil {
		f(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == pathLogin {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "meridian" || pass != "pw" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid credentials"}`))
			return
		}
		s.logins++
		tok := fmt.Sprintf("token-%d", s.logins)
		s.valid[tok] = true
		_ = json.NewEncoder(w).Encode(map[string]string{"token": tok})
		return
	}
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !s.valid[tok] {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"token expired"}`))
		return
	}
	if s.expireAfterUse {
		delete(s.valid, tok)
	}
	q := r.URL.Query()
	if q.Get("region") != "CAISO_NORTH" || q.Get("signal_type") != "co2_moer" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"bad region or signal_type"}`))
		return
	}
	var from, to time.Time
	switch r.URL.Path {
	case pathForecast:
		h, err := strconv.Atoi(q.Get("horizon_hours"))
		if err != nil || h < 0 || h > 72 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		from = now.Truncate(5 * time.Minute)
		to = from.Add(time.Duration(h) * time.Hour)
		if h == 0 {
			to = from.Add(time.Minute)
		}
	case pathHistorical:
		var err1, err2 error
		from, err1 = time.Parse(time.RFC3339, q.Get("start"))
		to, err2 = time.Parse(time.RFC3339, q.Get("end"))
		if errors.Join(err1, err2) != nil || to.Sub(from) > 32*24*time.Hour {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"range too long"}`))
			return
		}
	default:
		http.NotFound(w, r)
		return
	}
	var data []any
	for t := from; t.Before(to); t = t.Add(5 * time.Minute) {
		data = append(data, map[string]any{"point_time": t.Format("2006-01-02T15:04:05+00:00"), "value": moer(t)})
	}
	units := s.units
	if units == "" {
		units = "lbs_co2_per_mwh"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "meta": map[string]any{
		"data_point_period_seconds": 300, "region": "CAISO_NORTH", "signal_type": "co2_moer",
		"model": map[string]string{"date": "2026-03-01"}, "units": units, "generated_at": now.Format(time.RFC3339),
		"generated_at_period_seconds": 300, "warnings": []any{}}})
}

func point(t time.Time, g float64, kind carbon.Kind) carbon.Point {
	return carbon.Point{Zone: "US-CAL-CISO", Time: t, GramsPerKWh: g, Kind: kind, Signal: carbon.Marginal, Source: Name}
}

func TestClient(t *testing.T) {
	h := carbon.Hour(now)
	latest := func(ctx context.Context, c *Client) ([]carbon.Point, error) {
		p, err := c.Latest(ctx, "US-CAL-CISO")
		return []carbon.Point{p}, err
	}
	tests := []struct {
		name           string
		password       string
		expireAfterUse bool
		units          string
		fail           map[int]func(w http.ResponseWriter)
		call           func(ctx context.Context, c *Client) ([]carbon.Point, error)
		want           []carbon.Point
		wantRequests   []string
		wantErr        string
		wantIs         error
	}{
		{
			name:         "latest is the forecast's current value, converted to g/kWh",
			call:         latest,
			want:         []carbon.Point{point(h, moer(now)*0.45359237, carbon.Estimated)},
			wantRequests: []string{"/login?", "/v3/forecast?horizon_hours=0&region=CAISO_NORTH&signal_type=co2_moer"},
		},
		{
			name: "forecast: five-minute points averaged per hour, the current hour in part",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "US-CAL-CISO", 2*time.Hour)
			},
			want: []carbon.Point{
				point(h, hourMean(now, h.Add(time.Hour)), carbon.Forecast),
				point(h.Add(time.Hour), hourMean(h.Add(time.Hour), h.Add(2*time.Hour)), carbon.Forecast),
				point(h.Add(2*time.Hour), hourMean(h.Add(2*time.Hour), now.Add(2*time.Hour)), carbon.Forecast),
			},
			wantRequests: []string{"/login?", "/v3/forecast?horizon_hours=2&region=CAISO_NORTH&signal_type=co2_moer"},
		},
		{
			name: "history in requests of at most 31 days",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				pts, err := c.History(ctx, "US-CAL-CISO", h.Add(-40*24*time.Hour), h.Add(-40*24*time.Hour+2*time.Hour))
				if err != nil {
					return nil, err
				}
				long, err := c.History(ctx, "US-CAL-CISO", h.Add(-40*24*time.Hour), h)
				if len(long) != 40*24 {
					return nil, fmt.Errorf("40 days of history returned %d hours, want %d", len(long), 40*24)
				}
				return pts, err
			},
			want: []carbon.Point{
				point(h.Add(-40*24*time.Hour), hourMean(h.Add(-40*24*time.Hour), h.Add(-40*24*time.Hour+time.Hour)), carbon.Measured),
				point(h.Add(-40*24*time.Hour+time.Hour), hourMean(h.Add(-40*24*time.Hour+time.Hour), h.Add(-40*24*time.Hour+2*time.Hour)), carbon.Measured),
			},
			wantRequests: []string{
				"/login?",
				"/v3/historical?end=2026-10-14T14%3A00%3A00Z&region=CAISO_NORTH&signal_type=co2_moer&start=2026-10-14T12%3A00%3A00Z",
				"/v3/historical?end=2026-11-14T12%3A00%3A00Z&region=CAISO_NORTH&signal_type=co2_moer&start=2026-10-14T12%3A00%3A00Z",
				"/v3/historical?end=2026-11-23T12%3A00%3A00Z&region=CAISO_NORTH&signal_type=co2_moer&start=2026-11-14T12%3A00%3A00Z",
			},
		},
		{
			name:           "an expired token is renewed once on 401",
			expireAfterUse: true,
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				if _, err := c.Latest(ctx, "US-CAL-CISO"); err != nil {
					return nil, err
				}
				return latest(ctx, c)
			},
			want: []carbon.Point{point(h, moer(now)*0.45359237, carbon.Estimated)},
			wantRequests: []string{
				"/login?", "/v3/forecast?horizon_hours=0&region=CAISO_NORTH&signal_type=co2_moer",
				"/v3/forecast?horizon_hours=0&region=CAISO_NORTH&signal_type=co2_moer", "/login?",
				"/v3/forecast?horizon_hours=0&region=CAISO_NORTH&signal_type=co2_moer",
			},
		},
		{
			name:         "wrong credentials",
			password:     "nope",
			call:         latest,
			wantErr:      `watttime: login as "meridian": watttime: GET /login answered 401 Unauthorized: "invalid credentials"`,
			wantRequests: []string{"/login?"},
		},
		{
			name: "429 with Retry-After is retried",
			fail: map[int]func(w http.ResponseWriter){1: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
			}},
			call: latest,
			want: []carbon.Point{point(h, moer(now)*0.45359237, carbon.Estimated)},
			wantRequests: []string{"/login?", "/v3/forecast?horizon_hours=0&region=CAISO_NORTH&signal_type=co2_moer",
				"/v3/forecast?horizon_hours=0&region=CAISO_NORTH&signal_type=co2_moer"},
		},
		{
			name:         "unknown units are malformed",
			units:        "percent",
			call:         latest,
			wantErr:      `watttime: GET /v3/forecast for zone "US-CAL-CISO": malformed response: meta.units "percent" is not lbs_co2_per_mwh, g_co2_per_kwh or kg_co2_per_mwh`,
			wantRequests: []string{"/login?", "/v3/forecast?horizon_hours=0&region=CAISO_NORTH&signal_type=co2_moer"},
		},
		{
			name: "malformed body",
			fail: map[int]func(w http.ResponseWriter){1: func(w http.ResponseWriter) {
				_, _ = w.Write([]byte(`<html>maintenance</html>`))
			}},
			call:         latest,
			wantErr:      `watttime: GET /v3/forecast: malformed response body ("<html>maintenance</html>"): invalid character '<' looking for beginning of value`,
			wantRequests: []string{"/login?", "/v3/forecast?horizon_hours=0&region=CAISO_NORTH&signal_type=co2_moer"},
		},
		{
			name: "a zone without a region",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "DE", time.Hour)
			},
			wantIs: carbon.ErrUnknownZone,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &service{valid: map[string]bool{}, expireAfterUse: tc.expireAfterUse, units: tc.units, fail: tc.fail}
			srv := httptest.NewServer(svc)
			defer srv.Close()
			pw := tc.password
			if pw == "" {
				pw = "pw"
			}
			c, err := New(Config{BaseURL: srv.URL, Username: "meridian", Password: pw,
				Regions: map[string]string{"US-CAL-CISO": "CAISO_NORTH"}, Clock: clocktesting.NewFakePassiveClock(now),
				Options: apiclient.Options{Sleep: func(context.Context, time.Duration) error { return nil }}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.call(t.Context(), c)
			switch {
			case tc.wantIs != nil:
				if !errors.Is(err, tc.wantIs) {
					t.Fatalf("error = %v, want %v", err, tc.wantIs)
				}
			case tc.wantErr != "":
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v\nwant %s", err, tc.wantErr)
				}
			case err != nil:
				t.Fatalf("error = %v", err)
			default:
				if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
					t.Errorf("points (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.wantRequests, svc.requests); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTokenIsRenewedBeforeItExpires(t *testing.T) {
	svc := &service{valid: map[string]bool{}}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	clk := clocktesting.NewFakePassiveClock(now)
	c, err := New(Config{BaseURL: srv.URL, Username: "meridian", Password: "pw",
		Regions: map[string]string{"US-CAL-CISO": "CAISO_NORTH"}, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []time.Duration{0, 20 * time.Minute, 26 * time.Minute} {
		clk.SetTime(now.Add(step))
		if _, err := c.Latest(t.Context(), "US-CAL-CISO"); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(2, svc.logins); diff != "" {
		t.Errorf("logins over 30 minutes (-want +got):\n%s", diff)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "defaults", cfg: Config{Username: "u", Password: "p"}},
		{name: "no password", cfg: Config{Username: "u"}, wantErr: "watttime: username and password are required"},
		{name: "health damage is no CO2 signal", cfg: Config{Username: "u", Password: "p", SignalType: "health_damage"},
			wantErr: `watttime: signalType "health_damage" is not valid: use "co2_moer" or "co2_aoer"`},
		{name: "empty region", cfg: Config{Username: "u", Password: "p", Regions: map[string]string{"DE": ""}},
			wantErr: `watttime: regions["DE"] is empty`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)) {
				t.Errorf("New() error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}
