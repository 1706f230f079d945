package electricitymaps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"k8s.io/utils/clock"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/apiclient"
)

// Name is the source's name in points and decisions.
const Name = "electricitymaps"

// DefaultBaseURL is the service's address.
const DefaultBaseURL = "https://api.electricitymaps.com"

// Endpoints of the API.
const (
	pathLatest    = "/v3/carbon-intensity/latest"
	pathHistory   = "/v3/carbon-intensity/history"
	pathPastRange = "/v3/carbon-intensity/past-range"
	pathForecast  = "/v3/carbon-intensity/forecast"
)

// pastRangeMax is the longest range /past-range answers for hourly data.
const pastRangeMax = 10 * 24 * time.Hour

// Config configures a Client. The token comes from a Secret or the
// environment (docs/carbon.md), never from a manifest.
type Config struct {
	// BaseURL is the API's address; DefaultBaseURL when empty.
	BaseURL string
	// Token is the API key, sent as the auth-token header. Required.
	Token string
	// EmissionFactorType is "lifecycle" (the default) or "direct".
	EmissionFactorType string
	// Clock tells the time (which hours /history still holds, the current
	// hour of a forecast); the real clock when nil.
	Clock clock.PassiveClock
	// Options are the HTTP client and the retry bounds.
	apiclient.Options
}

// Client reads carbon intensities from Electricity Maps.
type Client struct {
	api    apiclient.Client
	token  string
	factor string
	clock  clock.PassiveClock
}

var _ carbon.Source = &Client{}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	u, err := apiclient.ParseBaseURL(Name, cfg.BaseURL, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Token == "" {
		return nil, errors.New("electricitymaps: token is required (the auth-token of an Electricity Maps API key)")
	}
	switch cfg.EmissionFactorType {
	case "", "lifecycle", "direct":
	default:
		return nil, fmt.Errorf("electricitymaps: emissionFactorType %q is not valid: use \"lifecycle\" or \"direct\"", cfg.EmissionFactorType)
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Client{
		api:    apiclient.Client{Source: Name, BaseURL: u, Options: cfg.Options},
		token:  cfg.Token,
		factor: cfg.EmissionFactorType,
		clock:  clk,
	}, nil
}

// Name implements carbon.Source.
func (c *Client) Name() string { return Name }

// intensity is one hour as the API reports it.
type intensity struct {
	Zone               string    `json:"zone"`
	CarbonIntensity    *float64  `json:"carbonIntensity"`
	Datetime           time.Time `json:"datetime"`
	UpdatedAt          time.Time `json:"updatedAt"`
	EmissionFactorType string    `json:"emissionFactorType"`
	IsEstimated        bool      `json:"isEstimated"`
	EstimationMethod   *string   `json:"estimationMethod"`
}

func (c *Client) get(ctx context.Context, endpoint string, q url.Values, out any) error {
	if c.factor != "" {
		q.Set("emissionFactorType", c.factor)
	}
	err := c.api.Get(ctx, endpoint, q, http.Header{"Auth-Token": {c.token}}, out)
	if apiclient.IsStatus(err, http.StatusNotFound) {
		// The API answers 404 for a zone it does not know.
		return fmt.Errorf("%w (%w)", err, carbon.ErrUnknownZone)
	}
	return err
}

// Latest implements carbon.Source with /latest.
func (c *Client) Latest(ctx context.Context, zone string) (carbon.Point, error) {
	var resp intensity
	if err := c.get(ctx, pathLatest, url.Values{"zone": {zone}}, &resp); err != nil {
		return carbon.Point{}, err
	}
	pts, err := points(zone, pathLatest, []intensity{resp})
	if err != nil {
		return carbon.Point{}, err
	}
	if len(pts) == 0 {
		return carbon.Point{}, fmt.Errorf("%s: GET %s for zone %q: carbonIntensity is null: %w", Name, pathLatest, zone, carbon.ErrNoData)
	}
	return pts[0], nil
}

// History implements carbon.Source: /history when the range lies in the last
// 24 hours, else /past-range in requests of at most ten days.
func (c *Client) History(ctx context.Context, zone string, from, to time.Time) ([]carbon.Point, error) {
	from = carbon.Hour(from)
	if !to.After(from) {
		return nil, nil
	}
	now := c.clock.Now()
	if !from.Before(carbon.Hour(now).Add(-23 * time.Hour)) {
		var resp struct {
			Zone    string      `json:"zone"`
			History []intensity `json:"history"`
		}
		if err := c.get(ctx, pathHistory, url.Values{"zone": {zone}}, &resp); err != nil {
			return nil, err
		}
		pts, err := points(zone, pathHistory, resp.History)
		return carbon.Between(pts, from, to), err
	}
	var out []carbon.Point
	for start := from; start.Before(to); start = start.Add(pastRangeMax) {
		end := start.Add(pastRangeMax)
		if end.After(to) {
			end = to
		}
		var resp struct {
			Zone string      `json:"zone"`
			Data []intensity `json:"data"`
		}
		q := url.Values{"zone": {zone}, "start": {start.UTC().Format(time.RFC3339)}, "end": {end.UTC().Format(time.RFC3339)}}
		if err := c.get(ctx, pathPastRange, q, &resp); err != nil {
			return nil, err
		}
		pts, err := points(zone, pathPastRange, resp.Data)
		if err != nil {
			return nil, err
		}
		out = append(out, carbon.Between(pts, start, end)...)
	}
	return out, nil
}

// Forecast implements carbon.Source with /forecast, cut to the horizon.
func (c *Client) Forecast(ctx context.Context, zone string, horizon time.Duration) ([]carbon.Point, error) {
	var resp struct {
		Zone     string `json:"zone"`
		Forecast []struct {
			CarbonIntensity *float64  `json:"carbonIntensity"`
			Datetime        time.Time `json:"datetime"`
		} `json:"forecast"`
		UpdatedAt time.Time `json:"updatedAt"`
	}
	if err := c.get(ctx, pathForecast, url.Values{"zone": {zone}}, &resp); err != nil {
		return nil, err
	}
	var raw []carbon.Point
	for _, f := range resp.Forecast {
		if f.Datetime.IsZero() {
			return nil, fmt.Errorf("%s: GET %s for zone %q: malformed response: a forecast point has no datetime", Name, pathForecast, zone)
		}
		if f.CarbonIntensity == nil {
			continue
		}
		raw = append(raw, carbon.Point{Zone: zone, Time: f.Datetime, GramsPerKWh: *f.CarbonIntensity,
			Kind: carbon.Forecast, Signal: carbon.Average, Source: Name})
	}
	now := c.clock.Now()
	out := carbon.Between(carbon.Hourly(raw), now, now.Add(horizon))
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: GET %s for zone %q: no forecast hour between %s and %s: %w",
			Name, pathForecast, zone, carbon.Hour(now).Format(time.RFC3339), now.Add(horizon).UTC().Format(time.RFC3339), carbon.ErrNoData)
	}
	return out, nil
}

// points converts the API's hours, leaving out those without a value.
func points(zone, endpoint string, in []intensity) ([]carbon.Point, error) {
	var raw []carbon.Point
	for _, it := range in {
		if it.Datetime.IsZero() {
			return nil, fmt.Errorf("%s: GET %s for zone %q: malformed response: a point has no datetime", Name, endpoint, zone)
		}
		if it.CarbonIntensity == nil {
			continue
		}
		kind := carbon.Measured
		if it.IsEstimated {
			kind = carbon.Estimated
		}
		raw = append(raw, carbon.Point{Zone: zone, Time: it.Datetime, GramsPerKWh: *it.CarbonIntensity,
			Kind: kind, Signal: carbon.Average, Source: Name})
	}
	return carbon.Hourly(raw), nil
}
