package watttime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/apiclient"
)

// Name is the source's name in points and decisions.
const Name = "watttime"

// DefaultBaseURL is the service's address.
const DefaultBaseURL = "https://api.watttime.org"

// Endpoints of the API.
const (
	pathLogin      = "/login"
	pathForecast   = "/v3/forecast"
	pathHistorical = "/v3/historical"
)

const (
	// historicalMax is the longest range /v3/historical answers.
	historicalMax = 31 * 24 * time.Hour
	// maxHorizonHours is the longest forecast the service publishes.
	maxHorizonHours = 72
	// tokenLifetime is how long the client uses a token before logging in
	// again; WattTime's tokens last 30 minutes.
	tokenLifetime = 25 * time.Minute
	// lbsPerMWhToGramsPerKWh converts lbs CO2/MWh to g CO2/kWh.
	lbsPerMWhToGramsPerKWh = 453.59237 / 1000
)

// Signal types the client accepts, and what they measure.
var signals = map[string]carbon.Signal{
	"co2_moer": carbon.Marginal,
	"co2_aoer": carbon.Average,
}

// Config configures a Client. Username and password come from a Secret or
// the environment (docs/carbon.md), never from a manifest.
type Config struct {
	// BaseURL is the API's address; DefaultBaseURL when empty.
	BaseURL string
	// Username and Password log in. Required.
	Username, Password string
	// Regions maps Electricity Maps zones to WattTime regions, e.g.
	// "US-CAL-CISO": "CAISO_NORTH". A zone not in it is unknown.
	Regions map[string]string
	// SignalType is "co2_moer" (the default, marginal) or "co2_aoer"
	// (average).
	SignalType string
	// Clock tells the time (token age, the current hour); the real clock
	// when nil.
	Clock clock.PassiveClock
	// Options are the HTTP client and the retry bounds.
	apiclient.Options
}

// Client reads carbon intensities from WattTime.
type Client struct {
	api        apiclient.Client
	username   string
	password   string
	regions    map[string]string
	signalType string
	signal     carbon.Signal
	clock      clock.PassiveClock

	mu       sync.Mutex
	token    string
	loggedIn time.Time
}

var _ carbon.Source = &Client{}

// New validates cfg and returns a Client; it logs in on first use.
func New(cfg Config) (*Client, error) {
	u, err := apiclient.ParseBaseURL(Name, cfg.BaseURL, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.Username == "" || cfg.Password == "" {
		return nil, errors.New("watttime: username and password are required")
	}
	st := cfg.SignalType
	if st == "" {
		st = "co2_moer"
	}
	sig, ok := signals[st]
	if !ok {
		return nil, fmt.Errorf("watttime: signalType %q is not valid: use \"co2_moer\" or \"co2_aoer\"", cfg.SignalType)
	}
	for zone, region := range cfg.Regions {
		if region == "" {
			return nil, fmt.Errorf("watttime: regions[%q] is empty: give the WattTime region, e.g. \"CAISO_NORTH\"", zone)
		}
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Client{
		api:      apiclient.Client{Source: Name, BaseURL: u, Options: cfg.Options},
		username: cfg.Username, password: cfg.Password,
		regions: cfg.Regions, signalType: st, signal: sig, clock: clk,
	}, nil
}

// Name implements carbon.Source.
func (c *Client) Name() string { return Name }

// response is the body of /v3/forecast and /v3/historical.
type response struct {
	Data []struct {
		PointTime time.Time `json:"point_time"`
		Value     *float64  `json:"value"`
	} `json:"data"`
	Meta struct {
		Region      string `json:"region"`
		SignalType  string `json:"signal_type"`
		Units       string `json:"units"`
		GeneratedAt string `json:"generated_at"`
	} `json:"meta"`
}

// Latest implements carbon.Source with /v3/forecast?horizon_hours=0, which
// WattTime documents as the current value.
func (c *Client) Latest(ctx context.Context, zone string) (carbon.Point, error) {
	region, err := c.region(zone)
	if err != nil {
		return carbon.Point{}, err
	}
	var resp response
	q := url.Values{"region": {region}, "signal_type": {c.signalType}, "horizon_hours": {"0"}}
	if err := c.get(ctx, pathForecast, q, &resp); err != nil {
		return carbon.Point{}, err
	}
	pts, err := c.points(zone, pathForecast, resp, carbon.Estimated)
	if err != nil {
		return carbon.Point{}, err
	}
	if len(pts) == 0 {
		return carbon.Point{}, fmt.Errorf("%s: GET %s for region %s: no data: %w", Name, pathForecast, region, carbon.ErrNoData)
	}
	// Five-minute points make the current hour's mean; it is the latest hour.
	return pts[len(pts)-1], nil
}

// History implements carbon.Source with /v3/historical, in requests of at
// most 31 days.
func (c *Client) History(ctx context.Context, zone string, from, to time.Time) ([]carbon.Point, error) {
	region, err := c.region(zone)
	if err != nil {
		return nil, err
	}
	from = carbon.Hour(from)
	var out []carbon.Point
	for start := from; start.Before(to); start = start.Add(historicalMax) {
		end := start.Add(historicalMax)
		if end.After(to) {
			end = to
		}
		var resp response
		q := url.Values{"region": {region}, "signal_type": {c.signalType},
			"start": {start.UTC().Format(time.RFC3339)}, "end": {end.UTC().Format(time.RFC3339)}}
		if err := c.get(ctx, pathHistorical, q, &resp); err != nil {
			return nil, err
		}
		pts, err := c.points(zone, pathHistorical, resp, carbon.Measured)
		if err != nil {
			return nil, err
		}
		out = append(out, carbon.Between(pts, start, end)...)
	}
	return out, nil
}

// Forecast implements carbon.Source with /v3/forecast.
func (c *Client) Forecast(ctx context.Context, zone string, horizon time.Duration) ([]carbon.Point, error) {
	region, err := c.region(zone)
	if err != nil {
		return nil, err
	}
	hours := int(math.Ceil(horizon.Hours()))
	hours = max(1, min(hours, maxHorizonHours))
	var resp response
	q := url.Values{"region": {region}, "signal_type": {c.signalType}, "horizon_hours": {fmt.Sprint(hours)}}
	if err := c.get(ctx, pathForecast, q, &resp); err != nil {
		return nil, err
	}
	pts, err := c.points(zone, pathForecast, resp, carbon.Forecast)
	if err != nil {
		return nil, err
	}
	now := c.clock.Now()
	out := carbon.Between(pts, now, now.Add(horizon))
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: GET %s for region %s: no forecast hour after %s: %w", Name, pathForecast, region, carbon.Hour(now).Format(time.RFC3339), carbon.ErrNoData)
	}
	return out, nil
}

func (c *Client) region(zone string) (string, error) {
	return apiclient.Lookup(Name, "WattTime region", zone, c.regions)
}

// get sends an authenticated request, logging in first when the token is
// missing or old, and once more when the service answers 401.
func (c *Client) get(ctx context.Context, endpoint string, q url.Values, out any) error {
	token, err := c.currentToken(ctx, false)
	if err != nil {
		return err
	}
	err = c.api.Get(ctx, endpoint, q, http.Header{"Authorization": {"Bearer " + token}}, out)
	if !apiclient.IsStatus(err, http.StatusUnauthorized) {
		return err
	}
	if token, err = c.currentToken(ctx, true); err != nil {
		return err
	}
	return c.api.Get(ctx, endpoint, q, http.Header{"Authorization": {"Bearer " + token}}, out)
}

func (c *Client) currentToken(ctx context.Context, renew bool) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !renew && c.token != "" && c.clock.Since(c.loggedIn) < tokenLifetime {
		return c.token, nil
	}
	var resp struct {
		Token string `json:"token"`
	}
	req := &http.Request{Header: http.Header{}}
	req.SetBasicAuth(c.username, c.password)
	if err := c.api.Get(ctx, pathLogin, url.Values{}, req.Header, &resp); err != nil {
		return "", fmt.Errorf("%s: login as %q: %w", Name, c.username, err)
	}
	if resp.Token == "" {
		return "", fmt.Errorf("%s: GET %s: malformed response: no token", Name, pathLogin)
	}
	c.token, c.loggedIn = resp.Token, c.clock.Now()
	return c.token, nil
}

// points converts a response into hourly points in g/kWh.
func (c *Client) points(zone, endpoint string, resp response, kind carbon.Kind) ([]carbon.Point, error) {
	var factor float64
	switch resp.Meta.Units {
	case "lbs_co2_per_mwh":
		factor = lbsPerMWhToGramsPerKWh
	case "g_co2_per_kwh", "kg_co2_per_mwh":
		factor = 1
	default:
		return nil, fmt.Errorf("%s: GET %s for zone %q: malformed response: meta.units %q is not lbs_co2_per_mwh, g_co2_per_kwh or kg_co2_per_mwh", Name, endpoint, zone, resp.Meta.Units)
	}
	var raw []carbon.Point
	for _, d := range resp.Data {
		if d.PointTime.IsZero() {
			return nil, fmt.Errorf("%s: GET %s for zone %q: malformed response: a point has no point_time", Name, endpoint, zone)
		}
		if d.Value == nil {
			continue
		}
		raw = append(raw, carbon.Point{Zone: zone, Time: d.PointTime, GramsPerKWh: *d.Value * factor,
			Kind: kind, Signal: c.signal, Source: Name})
	}
	return carbon.Hourly(raw), nil
}
