package traffic

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// maxResponseBytes bounds how much of an answer is read; one number per
// cluster is far less.
const maxResponseBytes = 32 << 20

// APIError is an error answer of the Prometheus server: the HTTP status
// and, when the body is the API's JSON, its errorType and error.
type APIError struct {
	// StatusCode is the HTTP status, for example 400 for a query that does
	// not parse.
	StatusCode int
	// ErrorType is the API's class of error, such as "bad_data",
	// "timeout" or "execution"; empty when the body was not the API's.
	ErrorType string
	// Message is the API's error, or the start of the body when it was not
	// the API's.
	Message string
}

// Error says what the server answered.
func (e *APIError) Error() string {
	if e.ErrorType == "" {
		return fmt.Sprintf("prometheus answered %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Message)
	}
	return fmt.Sprintf("prometheus answered %d %s: %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.ErrorType, e.Message)
}

// apiResponse is the envelope of every answer of the HTTP API.
type apiResponse struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
}

// queryData is the data of an answer to a query.
type queryData struct {
	ResultType string          `json:"resultType"`
	Result     json.RawMessage `json:"result"`
}

// vectorSample is one series of an instant vector: its labels and
// [unix time, "value"].
type vectorSample struct {
	Metric map[string]string `json:"metric"`
	Value  []json.RawMessage `json:"value"`
}

// decodeResponse reads the API's answer from resp: its data on success, an
// *APIError when the server reports an error.
func decodeResponse(resp *http.Response) (*queryData, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, fmt.Errorf("failed to read response (HTTP %d): %w", resp.StatusCode, err)
	}
	var env apiResponse
	jsonErr := json.Unmarshal(body, &env)
	switch {
	case jsonErr == nil && env.Status == "error":
		return nil, &APIError{StatusCode: resp.StatusCode, ErrorType: env.ErrorType, Message: env.Error}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, &APIError{StatusCode: resp.StatusCode, Message: excerpt(body)}
	case jsonErr != nil:
		return nil, fmt.Errorf("response is not the query API's JSON (%w): %s", jsonErr, excerpt(body))
	case env.Status != "success":
		return nil, fmt.Errorf("response has status %q; want \"success\" or \"error\"", env.Status)
	}
	var data queryData
	if err := json.Unmarshal(env.Data, &data); err != nil {
		return nil, fmt.Errorf("response data is not a query result: %w", err)
	}
	return &data, nil
}

// excerpt returns the start of body, for an error message.
func excerpt(body []byte) string {
	const limit = 200
	s := strings.TrimSpace(string(body))
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}

// sumByCluster sums the samples of an instant vector per value of label.
func sumByCluster(data *queryData, label string) (map[string]float64, error) {
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("%w %q; want \"vector\", an instant vector with one sample per series, as sum by (%s) (rate(...[1m])) yields",
			ErrUnexpectedResultType, data.ResultType, label)
	}
	var samples []vectorSample
	if err := json.Unmarshal(data.Result, &samples); err != nil {
		return nil, fmt.Errorf("result is not an instant vector: %w", err)
	}
	traffic := make(map[string]float64, len(samples))
	var unlabelled []string
	for _, s := range samples {
		v, err := sampleValue(s)
		if err != nil {
			return nil, err
		}
		cluster := s.Metric[label]
		if cluster == "" {
			unlabelled = append(unlabelled, formatSeries(s.Metric))
			continue
		}
		traffic[cluster] += v
		if math.IsInf(traffic[cluster], 0) {
			return nil, fmt.Errorf("%w: the sum of the series of %s=%q overflows; want a finite number", ErrInvalidValue, label, cluster)
		}
	}
	if len(unlabelled) > 0 {
		const shown = 3
		more := ""
		if len(unlabelled) > shown {
			more = fmt.Sprintf(" and %d more", len(unlabelled)-shown)
		}
		return nil, fmt.Errorf("%w: %d of %d series lack label %q: %s%s; keep the label in the result, as sum by (%s) (...) does, or use the label the series carry as the cluster label",
			ErrMissingClusterLabel, len(unlabelled), len(samples), label, strings.Join(unlabelled[:min(len(unlabelled), shown)], ", "), more, label)
	}
	return traffic, nil
}

// sampleValue returns the value of s, refusing one that is not a finite,
// non-negative number.
func sampleValue(s vectorSample) (float64, error) {
	if len(s.Value) != 2 {
		return 0, fmt.Errorf("sample of series %s has %d elements; want [time, \"value\"]", formatSeries(s.Metric), len(s.Value))
	}
	var text string
	if err := json.Unmarshal(s.Value[1], &text); err != nil {
		return 0, fmt.Errorf("sample value %s of series %s is not a string: %w", s.Value[1], formatSeries(s.Metric), err)
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, fmt.Errorf("sample value %q of series %s is not a number: %w", text, formatSeries(s.Metric), err)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%w %s of series %s; want a finite number >= 0", ErrInvalidValue, text, formatSeries(s.Metric))
	}
	return v, nil
}

// formatSeries writes labels as PromQL does: name{label="value", ...}, the
// labels sorted.
func formatSeries(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for name := range labels {
		if name != "__name__" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(labels["__name__"])
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", name, labels[name])
	}
	b.WriteByte('}')
	return b.String()
}
