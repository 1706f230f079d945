package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// Defaults of Client's bounds.
const (
	DefaultMaxRetries = 3
	DefaultBackoff    = time.Second
	DefaultMaxBackoff = 30 * time.Second
	// maxBody bounds how much of a response is read.
	maxBody = 16 << 20
)

// A StatusError is a non-2xx answer of a service.
type StatusError struct {
	// Source names the client, e.g. "electricitymaps".
	Source string
	// Endpoint is the request's path, e.g. "/v3/carbon-intensity/latest".
	Endpoint string
	// Code is the HTTP status code.
	Code int
	// Message is what the service said, from its error body, shortened.
	Message string
	// RetryAfter is the delay the service asked for, when it did.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s: GET %s answered %d %s", e.Source, e.Endpoint, e.Code, http.StatusText(e.Code))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// IsStatus reports whether err is a StatusError with the code.
func IsStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}

// Client sends JSON GET requests to one service.
type Client struct {
	// Source names the service in errors.
	Source string
	// BaseURL is the service's root; endpoints are joined to its path.
	BaseURL *url.URL
	// Options are the HTTP client and the retry bounds.
	Options
}

// Options are what a service's client configuration passes on to Client:
// the HTTP client and how a request is retried.
type Options struct {
	// HTTP sends the requests; http.DefaultClient when nil.
	HTTP *http.Client
	// MaxRetries bounds the retries of one request after 429, 5xx or a
	// transport error; DefaultMaxRetries when zero, none when negative.
	MaxRetries int
	// Backoff is the first retry's delay when the service gives no
	// Retry-After; it doubles on each retry up to MaxBackoff.
	Backoff time.Duration
	// MaxBackoff bounds every delay: a Retry-After longer than it ends the
	// retries at once with the service's error.
	MaxBackoff time.Duration
	// Sleep waits d or until ctx ends; a timer when nil. Tests set it to
	// record the delays instead of waiting them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Get sends GET endpoint?query with the header and decodes the JSON answer
// into out. A 204 No Content answer wraps carbon.ErrNoData.
func (c *Client) Get(ctx context.Context, endpoint string, query url.Values, header http.Header, out any) error {
	u := *c.BaseURL
	u.Path = strings.TrimSuffix(u.Path, "/") + endpoint
	u.RawQuery = query.Encode()
	retries := c.MaxRetries
	if retries == 0 {
		retries = DefaultMaxRetries
	}
	backoff := c.Backoff
	if backoff <= 0 {
		backoff = DefaultBackoff
	}
	maxBackoff := c.MaxBackoff
	if maxBackoff <= 0 {
		maxBackoff = DefaultMaxBackoff
	}
	for attempt := 0; ; attempt++ {
		body, err := c.once(ctx, u.String(), endpoint, header)
		if err == nil {
			if body == nil {
				return fmt.Errorf("%s: GET %s answered 204 No Content: %w", c.Source, endpoint, carbon.ErrNoData)
			}
			if err := json.Unmarshal(body, out); err != nil {
				return fmt.Errorf("%s: GET %s: malformed response body (%s): %w", c.Source, endpoint, excerpt(body), err)
			}
			return nil
		}
		if ctx.Err() != nil || attempt >= retries || !retryable(err) {
			return err
		}
		delay := backoff << attempt
		var se *StatusError
		if errors.As(err, &se) && se.RetryAfter > 0 {
			delay = se.RetryAfter
			if delay > maxBackoff {
				return fmt.Errorf("%w (Retry-After %s is longer than the %s this client waits)", err, delay, maxBackoff)
			}
		}
		delay = min(delay, maxBackoff)
		if err := c.sleep(ctx, delay); err != nil {
			return fmt.Errorf("%s: GET %s: waiting %s to retry after %w", c.Source, endpoint, delay, errors.Join(err, ctx.Err()))
		}
	}
}

// once sends one request; a nil body with a nil error is a 204.
func (c *Client) once(ctx context.Context, u, endpoint string, header http.Header) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: GET %s: %w", c.Source, endpoint, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &transportError{fmt.Errorf("%s: GET %s: %w", c.Source, endpoint, err)}
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, &transportError{fmt.Errorf("%s: GET %s: reading the response: %w", c.Source, endpoint, err)}
	}
	switch {
	case resp.StatusCode == http.StatusNoContent:
		return nil, nil
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return body, nil
	}
	return nil, &StatusError{
		Source:     c.Source,
		Endpoint:   endpoint,
		Code:       resp.StatusCode,
		Message:    message(body),
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// transportError is a request that got no answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// message extracts what a service said from an error body: the fields the
// three services use (error, message, title, detail), else the body itself.
func message(body []byte) string {
	if len(strings.TrimSpace(string(body))) == 0 {
		return ""
	}
	var doc map[string]any
	if json.Unmarshal(body, &doc) == nil {
		var parts []string
		for _, k := range []string{"error", "message", "title", "detail"} {
			if s, ok := doc[k].(string); ok && s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			return excerpt([]byte(strings.Join(parts, ": ")))
		}
	}
	return excerpt(body)
}

// excerpt shortens a body for an error message.
func excerpt(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	if s == "" {
		return "empty body"
	}
	return strconv.Quote(s)
}
