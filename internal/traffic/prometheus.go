package traffic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"
)

const (
	// DefaultClusterLabel is the label that names a sample's cluster when
	// Config.ClusterLabel is empty.
	DefaultClusterLabel = "cluster"
	// DefaultTimeout bounds one query when Config.Timeout is zero.
	DefaultTimeout = 5 * time.Second
)

// labelName is what Prometheus accepts as a label name.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// Config says which Prometheus server to ask and how.
type Config struct {
	// URL is the server's base URL, http or https, with the path prefix it
	// is served under if any: "http://prometheus.monitoring:9090".
	URL string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Query is the PromQL query, a text/template with the fields
	// {{.Namespace}} and {{.Name}} of the workload. Both are Kubernetes
	// names, so they can stand inside a quoted PromQL string as they are.
	Query string
	// ClusterLabel is the label whose value names a sample's cluster;
	// empty means DefaultClusterLabel.
	ClusterLabel string
	// Timeout bounds one query, on the server (the API's timeout
	// parameter) and in the client; zero means DefaultTimeout.
	Timeout time.Duration
}

// Prometheus is a Source that queries a Prometheus server's HTTP API.
type Prometheus struct {
	endpoint     *url.URL
	client       *http.Client
	query        *template.Template
	clusterLabel string
	timeout      time.Duration
}

var _ Source = &Prometheus{}

// templateData is what a query template sees: the workload's names, not
// its query.
type templateData struct {
	Namespace string
	Name      string
}

// New checks cfg and returns a Prometheus that queries the server it names.
// It does not contact the server.
func New(cfg Config) (*Prometheus, error) {
	base, err := url.Parse(cfg.URL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: URL %q does not parse: %w", ErrInvalidConfig, cfg.URL, err)
	case base.Scheme != "http" && base.Scheme != "https":
		return nil, fmt.Errorf("%w: URL %q has scheme %q; want http or https, as in http://prometheus:9090", ErrInvalidConfig, cfg.URL, base.Scheme)
	case base.Host == "":
		return nil, fmt.Errorf("%w: URL %q has no host; want one, as in http://prometheus:9090", ErrInvalidConfig, cfg.URL)
	case base.RawQuery != "" || base.Fragment != "":
		return nil, fmt.Errorf("%w: URL %q has a query or fragment; want the server's base URL only", ErrInvalidConfig, cfg.URL)
	}
	query, err := parseQuery("Query", cfg.Query)
	if err != nil {
		return nil, err
	}
	label := cfg.ClusterLabel
	if label == "" {
		label = DefaultClusterLabel
	}
	if err := checkLabel("ClusterLabel", label); err != nil {
		return nil, err
	}
	timeout := cfg.Timeout
	switch {
	case timeout == 0:
		timeout = DefaultTimeout
	case timeout < time.Millisecond:
		return nil, fmt.Errorf("%w: Timeout %s is below 1ms; want a positive duration such as 5s, or 0 for %s", ErrInvalidConfig, timeout, DefaultTimeout)
	}
	client := cfg.Client
	if client == nil {
		client = http.DefaultClient
	}
	return &Prometheus{
		endpoint:     base.JoinPath("api", "v1", "query"),
		client:       client,
		query:        query,
		clusterLabel: label,
		timeout:      timeout,
	}, nil
}

// parseQuery parses the query template in field and runs it once on
// example names, so that a misspelt field is found now rather than on the
// first workload.
func parseQuery(field, text string) (*template.Template, error) {
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("%w: %s is empty; want a PromQL query such as %s", ErrInvalidConfig, field,
			`sum by (cluster) (rate(http_requests_total{namespace="{{.Namespace}}",app="{{.Name}}"}[1m]))`)
	}
	tmpl, err := template.New(field).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q is not a valid template (fields are {{.Namespace}} and {{.Name}}): %w", ErrInvalidConfig, field, text, err)
	}
	if _, err := render(tmpl, templateData{Namespace: "default", Name: "example"}); err != nil {
		return nil, fmt.Errorf("%w: %s %q: %w", ErrInvalidConfig, field, text, err)
	}
	return tmpl, nil
}

// render runs tmpl on data and refuses a query that comes out empty.
func render(tmpl *template.Template, data templateData) (string, error) {
	var b strings.Builder
	if err := tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("template does not run (fields are {{.Namespace}} and {{.Name}}): %w", err)
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", fmt.Errorf("template yields an empty query")
	}
	return b.String(), nil
}

func checkLabel(field, label string) error {
	if !labelName.MatchString(label) {
		return fmt.Errorf("%w: %s %q is not a Prometheus label name; want letters, digits and underscores, not starting with a digit", ErrInvalidConfig, field, label)
	}
	return nil
}

// Traffic runs w's query, or the configured one, and sums the samples of
// the resulting instant vector per value of the cluster label.
func (p *Prometheus) Traffic(ctx context.Context, w Workload) (map[string]float64, error) {
	tmpl, label := p.query, p.clusterLabel
	if w.Query != "" {
		var err error
		if tmpl, err = parseQuery("Workload.Query", w.Query); err != nil {
			return nil, fmt.Errorf("failed to read traffic of %s: %w", w.Key(), err)
		}
	}
	if w.ClusterLabel != "" {
		if err := checkLabel("Workload.ClusterLabel", w.ClusterLabel); err != nil {
			return nil, fmt.Errorf("failed to read traffic of %s: %w", w.Key(), err)
		}
		label = w.ClusterLabel
	}
	query, err := render(tmpl, templateData{Namespace: w.Namespace, Name: w.Name})
	if err != nil {
		return nil, fmt.Errorf("failed to read traffic of %s: %w: %w", w.Key(), ErrInvalidConfig, err)
	}
	result, err := p.instantQuery(ctx, query)
	if err == nil {
		var traffic map[string]float64
		if traffic, err = sumByCluster(result, label); err == nil {
			return traffic, nil
		}
	}
	return nil, fmt.Errorf("failed to read traffic of %s from Prometheus at %s with query %q: %w", w.Key(), p.endpoint, query, err)
}

// instantQuery runs query at the current time and returns its result.
func (p *Prometheus) instantQuery(ctx context.Context, query string) (*queryData, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.queryURL(query), nil)
	if err != nil {
		return nil, fmt.Errorf("failed to build request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		// The caller's message names the URL and the query already; a
		// *url.Error would repeat both, encoded.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return nil, fmt.Errorf("failed to send request (timeout %s): %w", p.timeout, err)
	}
	defer resp.Body.Close()
	return decodeResponse(resp)
}

// queryURL returns the URL that asks the query API for query, bounded by
// the configured timeout.
func (p *Prometheus) queryURL(query string) string {
	u := *p.endpoint
	u.RawQuery = url.Values{
		"query":   {query},
		"timeout": {strconv.FormatFloat(p.timeout.Seconds(), 'f', -1, 64)},
	}.Encode()
	return u.String()
}
