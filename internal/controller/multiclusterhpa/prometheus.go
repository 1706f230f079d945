package multiclusterhpa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// queryTimeout bounds one query of the optimizer mode, on the server (the
// API's timeout parameter) and in the client.
const queryTimeout = 5 * time.Second

// maxResponseBytes bounds how much of an answer is read; one number is far
// less.
const maxResponseBytes = 1 << 20

// Querier evaluates a PromQL query that yields one number.
type Querier interface {
	// Query runs query against the Prometheus HTTP API at baseURL now and
	// returns its one value.
	Query(ctx context.Context, baseURL, query string) (float64, error)
}

// PrometheusQuerier is a Querier that asks a Prometheus server's HTTP API
// (GET /api/v1/query), as internal/traffic does.
type PrometheusQuerier struct {
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
}

var _ Querier = PrometheusQuerier{}

// Query runs query and returns its value: a scalar, or the value of an
// instant vector of exactly one series.
func (q PrometheusQuerier) Query(ctx context.Context, baseURL, query string) (float64, error) {
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return 0, fmt.Errorf("prometheus URL %q is not an http or https base URL such as http://prometheus:9090", baseURL)
	}
	u := base.JoinPath("api", "v1", "query")
	u.RawQuery = url.Values{"query": {query}, "timeout": {strconv.FormatFloat(queryTimeout.Seconds(), 'f', -1, 64)}}.Encode()
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, fmt.Errorf("failed to build request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	client := q.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return 0, fmt.Errorf("failed to query Prometheus at %s: %w", baseURL, err)
	}
	defer resp.Body.Close()
	return decodeValue(resp)
}

// decodeValue reads the one value of a query's answer.
func decodeValue(resp *http.Response) (float64, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return 0, fmt.Errorf("failed to read the answer (HTTP %d): %w", resp.StatusCode, err)
	}
	var env struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	jsonErr := json.Unmarshal(body, &env)
	switch {
	case jsonErr == nil && env.Status == "error":
		return 0, fmt.Errorf("prometheus answered %d: %s: %s", resp.StatusCode, env.ErrorType, env.Error)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return 0, fmt.Errorf("prometheus answered %d: %s", resp.StatusCode, excerpt(body))
	case jsonErr != nil:
		return 0, fmt.Errorf("the answer is not the query API's JSON (%w): %s", jsonErr, excerpt(body))
	}
	var pair []json.RawMessage
	switch env.Data.ResultType {
	case "scalar":
		if err := json.Unmarshal(env.Data.Result, &pair); err != nil {
			return 0, fmt.Errorf("scalar result does not parse: %w", err)
		}
	case "vector":
		var series []struct {
			Value []json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(env.Data.Result, &series); err != nil {
			return 0, fmt.Errorf("vector result does not parse: %w", err)
		}
		if len(series) != 1 {
			return 0, fmt.Errorf("the query yields %d series; want exactly one: wrap it in sum(...) or avg(...)", len(series))
		}
		pair = series[0].Value
	default:
		return 0, fmt.Errorf("the query yields a %s; want a scalar or an instant vector of one series", env.Data.ResultType)
	}
	var text string
	if len(pair) != 2 || json.Unmarshal(pair[1], &text) != nil {
		return 0, fmt.Errorf("sample %s is not [time, \"value\"]", excerpt(env.Data.Result))
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %q is not a finite number", text)
	}
	return v, nil
}

func excerpt(body []byte) string {
	const limit = 200
	s := strings.TrimSpace(string(body))
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}
