package carbonaware

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
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

// rating is the test service's five-minute intensity in g/kWh.
func rating(t time.Time) float64 { return float64(200 + t.Hour()*10 + t.Minute()) }

func mean(from, to time.Time) float64 {
	var sum float64
	n := 0
	for t := from; t.Before(to); t = t.Add(5 * time.Minute) {
		sum += rating(t)
		n++
	}
	return sum / float64(n)
}

// service speaks the Carbon Aware SDK WebAPI's documented JSON for the
// location "westeurope".
type service struct {
	mu       sync.Mutex
	requests []string
	fail     map[int]func(w http.ResponseWriter)
}

func problem(w http.ResponseWriter, status int, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "https://tools.ietf.org/html/rfc7231#section-6.5.1",
		"title": title, "status": status, "detail": detail, "errors": map[string]any{}})
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
	q := r.URL.Query()
	if q.Get("location") != "westeurope" {
		problem(w, http.StatusBadRequest, "ArgumentException", "Unknown location: '"+q.Get("location")+"'")
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	switch r.URL.Path {
	case pathByLocations:
		from, err1 := time.Parse(time.RFC3339, q.Get("time"))
		to, err2 := time.Parse(time.RFC3339, q.Get("toTime"))
		if errors.Join(err1, err2) != nil {
			problem(w, http.StatusBadRequest, "ArgumentException", "bad time")
			return
		}
		var out []any
		for t := from; t.Before(to); t = t.Add(5 * time.Minute) {
			out = append(out, map[string]any{"location": "westeurope", "time": t.Format("2006-01-02T15:04:05+00:00"), "rating": rating(t), "duration": "00:05:00"})
		}
		if len(out) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		_ = json.NewEncoder(w).Encode(out)
	case pathForecast:
		var data []any
		start := now.Truncate(5 * time.Minute)
		for t := start; t.Before(start.Add(24 * time.Hour)); t = t.Add(5 * time.Minute) {
			data = append(data, map[string]any{"location": "NL", "timestamp": t.Format("2006-01-02T15:04:05+00:00"), "duration": 5, "value": rating(t)})
		}
		_ = json.NewEncoder(w).Encode([]any{map[string]any{
			"generatedAt": now.Format(time.RFC3339), "requestedAt": now.Format(time.RFC3339), "location": "westeurope",
			"dataStartAt": start.Format(time.RFC3339), "dataEndAt": start.Add(24 * time.Hour).Format(time.RFC3339), "windowSize": 5,
			"optimalDataPoints": []any{data[0]}, "forecastData": data}})
	default:
		http.NotFound(w, r)
	}
}

func point(t time.Time, g float64, kind carbon.Kind) carbon.Point {
	return carbon.Point{Zone: "NL", Time: t, GramsPerKWh: g, Kind: kind, Signal: carbon.Marginal, Source: Name}
}

func TestClient(t *testing.T) {
	h := carbon.Hour(now)
	tests := []struct {
		name         string
		fail         map[int]func(w http.ResponseWriter)
		call         func(ctx context.Context, c *Client) ([]carbon.Point, error)
		want         []carbon.Point
		wantRequests []string
		wantErr      string
		wantIs       error
	}{
		{
			name: "history averages five-minute ratings per hour",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.History(ctx, "NL", h.Add(-2*time.Hour), h)
			},
			want: []carbon.Point{
				point(h.Add(-2*time.Hour), mean(h.Add(-2*time.Hour), h.Add(-time.Hour)), carbon.Measured),
				point(h.Add(-time.Hour), mean(h.Add(-time.Hour), h), carbon.Measured),
			},
			wantRequests: []string{pathByLocations + "?location=westeurope&time=2026-11-23T10%3A00%3A00Z&toTime=2026-11-23T12%3A00%3A00Z"},
		},
		{
			name: "latest is the newest hour",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				p, err := c.Latest(ctx, "NL")
				return []carbon.Point{p}, err
			},
			want:         []carbon.Point{point(h, mean(h, now), carbon.Measured)},
			wantRequests: []string{pathByLocations + "?location=westeurope&time=2026-11-23T11%3A00%3A00Z&toTime=2026-11-23T12%3A20%3A00Z"},
		},
		{
			name: "forecast",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "NL", time.Hour)
			},
			want: []carbon.Point{
				point(h, mean(now, h.Add(time.Hour)), carbon.Forecast),
				point(h.Add(time.Hour), mean(h.Add(time.Hour), h.Add(2*time.Hour)), carbon.Forecast),
			},
			wantRequests: []string{pathForecast + "?location=westeurope"},
		},
		{
			name: "400 problem details",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "DE", time.Hour)
			},
			wantErr:      `carbonaware: GET /emissions/forecasts/current answered 400 Bad Request: "ArgumentException: Unknown location: 'germanywestcentral'"`,
			wantRequests: []string{pathForecast + "?location=germanywestcentral"},
		},
		{
			name: "500 problem details after the retries",
			fail: map[int]func(w http.ResponseWriter){
				0: func(w http.ResponseWriter) { problem(w, 500, "InternalServerError", "") },
				1: func(w http.ResponseWriter) { problem(w, 500, "InternalServerError", "") },
				2: func(w http.ResponseWriter) { problem(w, 500, "InternalServerError", "") },
				3: func(w http.ResponseWriter) { problem(w, 500, "InternalServerError", "") },
			},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "NL", time.Hour)
			},
			wantErr: `carbonaware: GET /emissions/forecasts/current answered 500 Internal Server Error: "InternalServerError"`,
			wantRequests: []string{pathForecast + "?location=westeurope", pathForecast + "?location=westeurope",
				pathForecast + "?location=westeurope", pathForecast + "?location=westeurope"},
		},
		{
			name: "429 then ok",
			fail: map[int]func(w http.ResponseWriter){0: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
			}},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "NL", time.Hour)
			},
			want: []carbon.Point{
				point(h, mean(now, h.Add(time.Hour)), carbon.Forecast),
				point(h.Add(time.Hour), mean(h.Add(time.Hour), h.Add(2*time.Hour)), carbon.Forecast),
			},
			wantRequests: []string{pathForecast + "?location=westeurope", pathForecast + "?location=westeurope"},
		},
		{
			name: "204 is an empty history",
			fail: map[int]func(w http.ResponseWriter){0: func(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.History(ctx, "NL", h.Add(-2*time.Hour), h)
			},
			wantRequests: []string{pathByLocations + "?location=westeurope&time=2026-11-23T10%3A00%3A00Z&toTime=2026-11-23T12%3A00%3A00Z"},
		},
		{
			name: "an element without rating is malformed",
			fail: map[int]func(w http.ResponseWriter){0: func(w http.ResponseWriter) {
				_, _ = w.Write([]byte(`[{"location":"westeurope","time":"2026-11-23T10:00:00+00:00"}]`))
			}},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.History(ctx, "NL", h.Add(-2*time.Hour), h)
			},
			wantErr:      "carbonaware: GET /emissions/bylocations for location westeurope: malformed response: an element lacks time or rating",
			wantRequests: []string{pathByLocations + "?location=westeurope&time=2026-11-23T10%3A00%3A00Z&toTime=2026-11-23T12%3A00%3A00Z"},
		},
		{
			name: "malformed body",
			fail: map[int]func(w http.ResponseWriter){0: func(w http.ResponseWriter) { _, _ = w.Write([]byte(`{"forecastData":[]}`)) }},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "NL", time.Hour)
			},
			wantErr:      `carbonaware: GET /emissions/forecasts/current: malformed response body ("{\"forecastData\":[]}"): json: cannot unmarshal object into Go value of type []struct { GeneratedAt time.Time "json:\"generatedAt\""; Location string "json:\"location\""; ForecastData []struct { Location string "json:\"location\""; Timestamp time.Time "json:\"timestamp\""; Duration int "json:\"duration\""; Value *float64 "json:\"value\"" } "json:\"forecastData\"" }`,
			wantRequests: []string{pathForecast + "?location=westeurope"},
		},
		{
			name: "a zone without a location",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "FR", time.Hour)
			},
			wantIs: carbon.ErrUnknownZone,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &service{fail: tc.fail}
			srv := httptest.NewServer(svc)
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL, Locations: map[string]string{"NL": "westeurope", "DE": "germanywestcentral"},
				Clock: clocktesting.NewFakePassiveClock(now), Options: apiclient.Options{Sleep: func(context.Context, time.Duration) error { return nil }}})
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

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "ok", cfg: Config{BaseURL: "http://casdk:8080"}},
		{name: "no base URL", cfg: Config{}, wantErr: "carbonaware: baseURL is required"},
		{name: "bad signal", cfg: Config{BaseURL: "http://casdk:8080", Signal: "lifecycle"}, wantErr: `carbonaware: signal "lifecycle" is not valid: use "marginal" or "average"`},
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
