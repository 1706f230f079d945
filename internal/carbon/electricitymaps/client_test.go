package electricitymaps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/apiclient"
)

var now = time.Date(2026, 11, 23, 12, 20, 0, 0, time.UTC)

// intensityAt is the test service's intensity of an hour.
func intensityAt(t time.Time) float64 { return float64(100 + t.Hour()*10 + t.Day()) }

// service speaks the documented Electricity Maps v3 JSON for zone DE.
type service struct {
	mu       sync.Mutex
	requests []string
	// fail, when set, answers the n-th request (from 0) instead.
	fail map[int]func(w http.ResponseWriter)
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, r.URL.Path+"?"+r.URL.RawQuery)
	f := s.fail[n]
	s.mu.Unlock()
	if f != nil {
		f(w)
		return
	}
	if r.Header.Get("auth-token") != "secret" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"Invalid authentication credentials"}`))
		return
	}
	q := r.URL.Query()
	if q.Get("zone") != "DE" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = fmt.Fprintf(w, `{"error":"Zone '%s' does not exist"}`, q.Get("zone"))
		return
	}
	hour := func(t time.Time, estimated bool) map[string]any {
		return map[string]any{"zone": "DE", "carbonIntensity": intensityAt(t), "datetime": t.Format("2006-01-02T15:04:05.000Z"),
			"updatedAt": now.Format(time.RFC3339), "createdAt": t.Format(time.RFC3339), "emissionFactorType": "lifecycle",
			"isEstimated": estimated, "estimationMethod": nil}
	}
	var body any
	switch r.URL.Path {
	case pathLatest:
		body = hour(carbon.Hour(now), true)
	case pathHistory:
		var hs []any
		for t := carbon.Hour(now).Add(-23 * time.Hour); !t.After(carbon.Hour(now)); t = t.Add(time.Hour) {
			hs = append(hs, hour(t, false))
		}
		body = map[string]any{"zone": "DE", "history": hs}
	case pathPastRange:
		start, err1 := time.Parse(time.RFC3339, q.Get("start"))
		end, err2 := time.Parse(time.RFC3339, q.Get("end"))
		if err := errors.Join(err1, err2); err != nil || end.Sub(start) > pastRangeMax {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"Invalid range"}`))
			return
		}
		var hs []any
		for t := start; t.Before(end); t = t.Add(time.Hour) {
			hs = append(hs, hour(t, false))
		}
		body = map[string]any{"zone": "DE", "data": hs}
	case pathForecast:
		var fs []any
		for t := carbon.Hour(now); t.Before(carbon.Hour(now).Add(72 * time.Hour)); t = t.Add(time.Hour) {
			fs = append(fs, map[string]any{"carbonIntensity": intensityAt(t), "datetime": t.Format("2006-01-02T15:04:05.000Z")})
		}
		body = map[string]any{"zone": "DE", "forecast": fs, "updatedAt": now.Format(time.RFC3339)}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func hours(from time.Time, n int, kind carbon.Kind) []carbon.Point {
	var out []carbon.Point
	for i := range n {
		t := from.Add(time.Duration(i) * time.Hour)
		out = append(out, carbon.Point{Zone: "DE", Time: t, GramsPerKWh: intensityAt(t), Kind: kind, Signal: carbon.Average, Source: Name})
	}
	return out
}

func TestClient(t *testing.T) {
	h := carbon.Hour(now)
	tests := []struct {
		name         string
		token        string
		fail         map[int]func(w http.ResponseWriter)
		call         func(ctx context.Context, c *Client) ([]carbon.Point, error)
		want         []carbon.Point
		wantRequests []string
		wantErr      string
		wantIs       error
	}{
		{
			name: "latest",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				p, err := c.Latest(ctx, "DE")
				return []carbon.Point{p}, err
			},
			want:         hours(h, 1, carbon.Estimated),
			wantRequests: []string{pathLatest + "?zone=DE"},
		},
		{
			name: "history of the last hours uses /history",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.History(ctx, "DE", now.Add(-3*time.Hour), h)
			},
			want:         hours(h.Add(-3*time.Hour), 3, carbon.Measured),
			wantRequests: []string{pathHistory + "?zone=DE"},
		},
		{
			name: "older history uses /past-range, ten days a request",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.History(ctx, "DE", h.Add(-30*24*time.Hour), h.Add(-5*24*time.Hour))
			},
			want: hours(h.Add(-30*24*time.Hour), 25*24, carbon.Measured),
			wantRequests: []string{
				pathPastRange + "?end=2026-11-03T12%3A00%3A00Z&start=2026-10-24T12%3A00%3A00Z&zone=DE",
				pathPastRange + "?end=2026-11-13T12%3A00%3A00Z&start=2026-11-03T12%3A00%3A00Z&zone=DE",
				pathPastRange + "?end=2026-11-18T12%3A00%3A00Z&start=2026-11-13T12%3A00%3A00Z&zone=DE",
			},
		},
		{
			name: "forecast is cut to the horizon",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "DE", 6*time.Hour)
			},
			want:         hours(h, 7, carbon.Forecast),
			wantRequests: []string{pathForecast + "?zone=DE"},
		},
		{
			name:  "401 names the source and endpoint",
			token: "wrong",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				p, err := c.Latest(ctx, "DE")
				return []carbon.Point{p}, err
			},
			wantErr:      `electricitymaps: GET /v3/carbon-intensity/latest answered 401 Unauthorized: "Invalid authentication credentials"`,
			wantRequests: []string{pathLatest + "?zone=DE"},
		},
		{
			name: "429 is retried after Retry-After",
			fail: map[int]func(w http.ResponseWriter){0: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"error":"Too many requests"}`))
			}},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "DE", time.Hour)
			},
			want:         hours(h, 2, carbon.Forecast),
			wantRequests: []string{pathForecast + "?zone=DE", pathForecast + "?zone=DE"},
		},
		{
			name: "5xx every time fails after the retries",
			fail: map[int]func(w http.ResponseWriter){
				0: func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) },
				1: func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) },
				2: func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) },
				3: func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) },
			},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				p, err := c.Latest(ctx, "DE")
				return []carbon.Point{p}, err
			},
			wantErr:      "electricitymaps: GET /v3/carbon-intensity/latest answered 502 Bad Gateway",
			wantRequests: []string{pathLatest + "?zone=DE", pathLatest + "?zone=DE", pathLatest + "?zone=DE", pathLatest + "?zone=DE"},
		},
		{
			name: "malformed body",
			fail: map[int]func(w http.ResponseWriter){0: func(w http.ResponseWriter) {
				_, _ = w.Write([]byte(`{"zone":"DE","carbonIntensity":"high"}`))
			}},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				p, err := c.Latest(ctx, "DE")
				return []carbon.Point{p}, err
			},
			wantErr:      `electricitymaps: GET /v3/carbon-intensity/latest: malformed response body ("{\"zone\":\"DE\",\"carbonIntensity\":\"high\"}"): json: cannot unmarshal string into Go struct field intensity.carbonIntensity of type float64`,
			wantRequests: []string{pathLatest + "?zone=DE"},
		},
		{
			name: "a point without datetime is malformed",
			fail: map[int]func(w http.ResponseWriter){0: func(w http.ResponseWriter) {
				_, _ = w.Write([]byte(`{"zone":"DE","history":[{"carbonIntensity":100}]}`))
			}},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.History(ctx, "DE", h.Add(-time.Hour), h)
			},
			wantErr:      `electricitymaps: GET /v3/carbon-intensity/history for zone "DE": malformed response: a point has no datetime`,
			wantRequests: []string{pathHistory + "?zone=DE"},
		},
		{
			name: "404 is an unknown zone",
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "XX", time.Hour)
			},
			wantIs:       carbon.ErrUnknownZone,
			wantRequests: []string{pathForecast + "?zone=XX"},
		},
		{
			name: "no forecast hour in the horizon",
			fail: map[int]func(w http.ResponseWriter){0: func(w http.ResponseWriter) {
				_, _ = w.Write([]byte(`{"zone":"DE","forecast":[],"updatedAt":"2026-11-23T12:00:00Z"}`))
			}},
			call: func(ctx context.Context, c *Client) ([]carbon.Point, error) {
				return c.Forecast(ctx, "DE", time.Hour)
			},
			wantIs:       carbon.ErrNoData,
			wantRequests: []string{pathForecast + "?zone=DE"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &service{fail: tc.fail}
			srv := httptest.NewServer(svc)
			defer srv.Close()
			token := tc.token
			if token == "" {
				token = "secret"
			}
			c, err := New(Config{BaseURL: srv.URL, Token: token, Clock: clocktesting.NewFakePassiveClock(now),
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
				if diff := cmp.Diff(tc.want, got); diff != "" {
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
		{name: "defaults", cfg: Config{Token: "t"}},
		{name: "no token", cfg: Config{}, wantErr: "electricitymaps: token is required"},
		{name: "bad URL", cfg: Config{Token: "t", BaseURL: "ftp://x"}, wantErr: `electricitymaps: baseURL "ftp://x" is not an http(s) URL`},
		{name: "bad factor", cfg: Config{Token: "t", EmissionFactorType: "marginal"}, wantErr: `electricitymaps: emissionFactorType "marginal" is not valid: use "lifecycle" or "direct"`},
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
