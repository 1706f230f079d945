package apiclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// answer is one response of the test server.
type answer struct {
	code       int
	retryAfter string
	body       string
}

func TestGet(t *testing.T) {
	tests := []struct {
		name       string
		answers    []answer
		maxRetries int
		want       map[string]any
		wantSleeps []time.Duration
		wantErr    string
		wantIs     error
		wantCalls  int
	}{
		{
			name:      "ok",
			answers:   []answer{{code: 200, body: `{"zone":"DE"}`}},
			want:      map[string]any{"zone": "DE"},
			wantCalls: 1,
		},
		{
			name:       "429 with Retry-After seconds, then ok",
			answers:    []answer{{code: 429, retryAfter: "7", body: `{"error":"rate limited"}`}, {code: 200, body: `{"zone":"DE"}`}},
			want:       map[string]any{"zone": "DE"},
			wantSleeps: []time.Duration{7 * time.Second},
			wantCalls:  2,
		},
		{
			name:       "5xx backs off exponentially, then ok",
			answers:    []answer{{code: 503}, {code: 502}, {code: 200, body: `{"zone":"DE"}`}},
			want:       map[string]any{"zone": "DE"},
			wantSleeps: []time.Duration{time.Second, 2 * time.Second},
			wantCalls:  3,
		},
		{
			name:       "retries are bounded",
			answers:    []answer{{code: 500}, {code: 500}, {code: 500}},
			maxRetries: 2,
			wantSleeps: []time.Duration{time.Second, 2 * time.Second},
			wantErr:    "test: GET /v3/x answered 500 Internal Server Error",
			wantCalls:  3,
		},
		{
			name:      "Retry-After beyond the bound ends at once",
			answers:   []answer{{code: 429, retryAfter: "3600", body: `{"message":"quota"}`}},
			wantErr:   `test: GET /v3/x answered 429 Too Many Requests: "quota" (Retry-After 1h0m0s is longer than the 30s this client waits)`,
			wantCalls: 1,
		},
		{
			name:      "401 is not retried",
			answers:   []answer{{code: 401, body: `{"title":"Unauthorized","detail":"bad token"}`}},
			wantErr:   `test: GET /v3/x answered 401 Unauthorized: "Unauthorized: bad token"`,
			wantCalls: 1,
		},
		{
			name:      "malformed body names source and endpoint",
			answers:   []answer{{code: 200, body: `{"zone": `}},
			wantErr:   `test: GET /v3/x: malformed response body ("{\"zone\":"): unexpected end of JSON input`,
			wantCalls: 1,
		},
		{
			name:      "204 is no data",
			answers:   []answer{{code: 204}},
			wantIs:    carbon.ErrNoData,
			wantCalls: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1)) - 1
				if r.URL.Path != "/v3/x" || r.URL.Query().Get("zone") != "DE" || r.Header.Get("Auth-Token") != "k" {
					http.Error(w, "wrong request "+r.URL.String(), http.StatusBadRequest)
					return
				}
				a := tc.answers[min(n, len(tc.answers)-1)]
				if a.retryAfter != "" {
					w.Header().Set("Retry-After", a.retryAfter)
				}
				w.WriteHeader(a.code)
				_, _ = w.Write([]byte(a.body))
			}))
			defer srv.Close()
			base, _ := url.Parse(srv.URL)
			var sleeps []time.Duration
			c := Client{Source: "test", BaseURL: base, Options: Options{MaxRetries: tc.maxRetries,
				Sleep: func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }}}
			var got map[string]any
			err := c.Get(t.Context(), "/v3/x", url.Values{"zone": {"DE"}}, http.Header{"Auth-Token": {"k"}}, &got)
			switch {
			case tc.wantIs != nil:
				if !errors.Is(err, tc.wantIs) {
					t.Fatalf("Get() error = %v, want %v", err, tc.wantIs)
				}
			case tc.wantErr != "":
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Get() error = %v, want %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatalf("Get() error = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSleeps, sleeps); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if got := int(calls.Load()); got != tc.wantCalls {
				t.Errorf("calls = %d, want %d", got, tc.wantCalls)
			}
		})
	}
}

func TestGetStopsWaitingWhenTheContextEnds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	base, _ := url.Parse(srv.URL)
	ctx, cancel := context.WithCancel(t.Context())
	c := Client{Source: "test", BaseURL: base, Options: Options{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}}}
	err := c.Get(ctx, "/v3/x", nil, nil, &struct{}{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting 20s to retry") {
		t.Fatalf("Get() error = %v, want the cancellation while waiting 20s", err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, header string
		want         time.Duration
	}{
		{name: "seconds", header: "120", want: 2 * time.Minute},
		{name: "HTTP date", header: now.Add(90 * time.Second).Format(http.TimeFormat), want: 90 * time.Second},
		{name: "date in the past", header: now.Add(-time.Minute).Format(http.TimeFormat), want: 0},
		{name: "garbage", header: "soon", want: 0},
		{name: "absent", header: "", want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, retryAfter(tc.header, now)); diff != "" {
				t.Errorf("retryAfter(%q) (-want +got):\n%s", tc.header, diff)
			}
		})
	}
}
