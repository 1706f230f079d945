package carbonaware

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"k8s.io/utils/clock"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/apiclient"
)

// Name is the source's name in points and decisions.
const Name = "carbonaware"

// Endpoints of the WebAPI.
const (
	pathByLocations = "/emissions/bylocations"
	pathForecast    = "/emissions/forecasts/current"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the WebAPI's address, e.g. "http://carbon-aware-sdk:8080".
	// Required: the SDK is self-hosted.
	BaseURL string
	// Locations maps Electricity Maps zones to the SDK's location names,
	// e.g. "NL": "westeurope". A zone not in it is unknown.
	Locations map[string]string
	// Signal is "marginal" (the default, the SDK's WattTime data source) or
	// "average" (its Electricity Maps data source).
	Signal carbon.Signal
	// Clock tells the time (the current hour); the real clock when nil.
	Clock clock.PassiveClock
	// Options are the HTTP client and the retry bounds.
	apiclient.Options
}

// Client reads carbon intensities from a Carbon Aware SDK WebAPI.
type Client struct {
	api       apiclient.Client
	locations map[string]string
	signal    carbon.Signal
	clock     clock.PassiveClock
}

var _ carbon.Source = &Client{}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("carbonaware: baseURL is required (the address of the Carbon Aware SDK WebAPI)")
	}
	u, err := apiclient.ParseBaseURL(Name, cfg.BaseURL, "")
	if err != nil {
		return nil, err
	}
	sig := cfg.Signal
	switch sig {
	case "":
		sig = carbon.Marginal
	case carbon.Marginal, carbon.Average:
	default:
		return nil, fmt.Errorf("carbonaware: signal %q is not valid: use %q or %q", cfg.Signal, carbon.Marginal, carbon.Average)
	}
	for zone, loc := range cfg.Locations {
		if loc == "" {
			return nil, fmt.Errorf("carbonaware: locations[%q] is empty: give the SDK's location name, e.g. \"westeurope\"", zone)
		}
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Client{
		api:       apiclient.Client{Source: Name, BaseURL: u, Options: cfg.Options},
		locations: cfg.Locations, signal: sig, clock: clk,
	}, nil
}

// Name implements carbon.Source.
func (c *Client) Name() string { return Name }

// emissionsData is one element of /emissions/bylocations.
type emissionsData struct {
	Location string    `json:"location"`
	Time     time.Time `json:"time"`
	Rating   *float64  `json:"rating"`
}

// Latest implements carbon.Source: the most recent hour of
// /emissions/bylocations over the last two hours.
func (c *Client) Latest(ctx context.Context, zone string) (carbon.Point, error) {
	now := c.clock.Now()
	pts, err := c.emissions(ctx, zone, carbon.Hour(now).Add(-time.Hour), now)
	if err != nil {
		return carbon.Point{}, err
	}
	if len(pts) == 0 {
		return carbon.Point{}, fmt.Errorf("%s: GET %s for zone %q: no data in the last hour: %w", Name, pathByLocations, zone, carbon.ErrNoData)
	}
	return pts[len(pts)-1], nil
}

// History implements carbon.Source with /emissions/bylocations.
func (c *Client) History(ctx context.Context, zone string, from, to time.Time) ([]carbon.Point, error) {
	if !to.After(carbon.Hour(from)) {
		return nil, nil
	}
	pts, err := c.emissions(ctx, zone, carbon.Hour(from), to)
	if errors.Is(err, carbon.ErrNoData) {
		return nil, nil
	}
	return pts, err
}

func (c *Client) emissions(ctx context.Context, zone string, from, to time.Time) ([]carbon.Point, error) {
	loc, err := c.location(zone)
	if err != nil {
		return nil, err
	}
	var resp []emissionsData
	q := url.Values{"location": {loc}, "time": {from.UTC().Format(time.RFC3339)}, "toTime": {to.UTC().Format(time.RFC3339)}}
	if err := c.api.Get(ctx, pathByLocations, q, nil, &resp); err != nil {
		return nil, err
	}
	var raw []carbon.Point
	for _, d := range resp {
		if d.Time.IsZero() || d.Rating == nil {
			return nil, fmt.Errorf("%s: GET %s for location %s: malformed response: an element lacks time or rating", Name, pathByLocations, loc)
		}
		if d.Location != "" && !strings.EqualFold(d.Location, loc) {
			continue
		}
		raw = append(raw, carbon.Point{Zone: zone, Time: d.Time, GramsPerKWh: *d.Rating,
			Kind: carbon.Measured, Signal: c.signal, Source: Name})
	}
	return carbon.Between(carbon.Hourly(raw), from, to), nil
}

// Forecast implements carbon.Source with /emissions/forecasts/current.
func (c *Client) Forecast(ctx context.Context, zone string, horizon time.Duration) ([]carbon.Point, error) {
	loc, err := c.location(zone)
	if err != nil {
		return nil, err
	}
	var resp []struct {
		GeneratedAt  time.Time `json:"generatedAt"`
		Location     string    `json:"location"`
		ForecastData []struct {
			Location  string    `json:"location"`
			Timestamp time.Time `json:"timestamp"`
			Duration  int       `json:"duration"`
			Value     *float64  `json:"value"`
		} `json:"forecastData"`
	}
	if err := c.api.Get(ctx, pathForecast, url.Values{"location": {loc}}, nil, &resp); err != nil {
		return nil, err
	}
	var raw []carbon.Point
	for _, f := range resp {
		if f.Location != "" && !strings.EqualFold(f.Location, loc) {
			continue
		}
		for _, d := range f.ForecastData {
			if d.Timestamp.IsZero() || d.Value == nil {
				return nil, fmt.Errorf("%s: GET %s for location %s: malformed response: a forecastData element lacks timestamp or value", Name, pathForecast, loc)
			}
			raw = append(raw, carbon.Point{Zone: zone, Time: d.Timestamp, GramsPerKWh: *d.Value,
				Kind: carbon.Forecast, Signal: c.signal, Source: Name})
		}
	}
	now := c.clock.Now()
	out := carbon.Between(carbon.Hourly(raw), now, now.Add(horizon))
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: GET %s for location %s: no forecast hour after %s: %w", Name, pathForecast, loc, carbon.Hour(now).Format(time.RFC3339), carbon.ErrNoData)
	}
	return out, nil
}

func (c *Client) location(zone string) (string, error) {
	return apiclient.Lookup(Name, "Carbon Aware SDK location", zone, c.locations)
}
