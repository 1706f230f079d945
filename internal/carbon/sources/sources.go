package sources

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/apiclient"
	"github.com/meridian-dev/meridian/internal/carbon/carbonaware"
	"github.com/meridian-dev/meridian/internal/carbon/electricitymaps"
	"github.com/meridian-dev/meridian/internal/carbon/offline"
	"github.com/meridian-dev/meridian/internal/carbon/watttime"
)

// Environment variables that carry the services' credentials.
const (
	EnvElectricityMapsToken = "MERIDIAN_ELECTRICITYMAPS_TOKEN"
	EnvWattTimeUsername     = "MERIDIAN_WATTTIME_USERNAME"
	EnvWattTimePassword     = "MERIDIAN_WATTTIME_PASSWORD"
)

// Defaults of a Budget.
const (
	DefaultRequestsPerMinute = 30
	DefaultBurst             = 10
	DefaultTimeout           = 10 * time.Second
)

// Config says which services Meridian asks for intensities. A service left
// nil is not asked; with none, the offline data answer alone.
type Config struct {
	// Order lists the services to ask, the preferred first, by name:
	// "electricitymaps", "watttime", "carbonaware". When empty, the
	// configured services in that order. The offline data always come last.
	Order           []string         `json:"order,omitempty"`
	ElectricityMaps *ElectricityMaps `json:"electricityMaps,omitempty"`
	WattTime        *WattTime        `json:"wattTime,omitempty"`
	CarbonAware     *CarbonAware     `json:"carbonAware,omitempty"`
	// LatestTTL, HistoryTTL, ForecastTTL and FailureTTL override the
	// Chain's cache lifetimes (Go durations, e.g. "10m").
	LatestTTL   string `json:"latestTTL,omitempty"`
	HistoryTTL  string `json:"historyTTL,omitempty"`
	ForecastTTL string `json:"forecastTTL,omitempty"`
	FailureTTL  string `json:"failureTTL,omitempty"`
}

// A Budget bounds the requests sent to one service.
type Budget struct {
	// RequestsPerMinute and Burst bound the request rate; DefaultRequestsPerMinute
	// and DefaultBurst when zero.
	RequestsPerMinute float64 `json:"requestsPerMinute,omitempty"`
	Burst             int     `json:"burst,omitempty"`
	// Timeout bounds each call, retries included (a Go duration);
	// DefaultTimeout when empty.
	Timeout string `json:"timeout,omitempty"`
}

// ElectricityMaps configures the Electricity Maps client; its token is
// read from MERIDIAN_ELECTRICITYMAPS_TOKEN.
type ElectricityMaps struct {
	BaseURL            string `json:"baseURL,omitempty"`
	EmissionFactorType string `json:"emissionFactorType,omitempty"`
	Budget
}

// WattTime configures the WattTime client; its username and password are
// read from MERIDIAN_WATTTIME_USERNAME and MERIDIAN_WATTTIME_PASSWORD.
type WattTime struct {
	BaseURL    string            `json:"baseURL,omitempty"`
	SignalType string            `json:"signalType,omitempty"`
	Regions    map[string]string `json:"regions"`
	Budget
}

// CarbonAware configures the Carbon Aware SDK WebAPI client.
type CarbonAware struct {
	BaseURL   string            `json:"baseURL"`
	Locations map[string]string `json:"locations"`
	Signal    carbon.Signal     `json:"signal,omitempty"`
	Budget
}

// Build returns the Chain cfg describes. getenv reads the credentials
// (os.Getenv in the binary); clk and hc are the clock and HTTP client the
// sources use (the real ones when nil).
func Build(cfg Config, getenv func(string) string, clk clock.PassiveClock, hc *http.Client) (*carbon.Chain, error) {
	if clk == nil {
		clk = clock.RealClock{}
	}
	order := cfg.Order
	if len(order) == 0 {
		for _, n := range []string{electricitymaps.Name, watttime.Name, carbonaware.Name} {
			if cfg.configured(n) {
				order = append(order, n)
			}
		}
	}
	var tiers []carbon.Tier
	var errs []error
	seen := map[string]bool{}
	for i, name := range order {
		if seen[name] {
			errs = append(errs, fmt.Errorf("order[%d]: %q appears twice", i, name))
			continue
		}
		seen[name] = true
		t, err := cfg.tier(name, getenv, clk, hc)
		if err != nil {
			errs = append(errs, fmt.Errorf("order[%d]: %w", i, err))
			continue
		}
		tiers = append(tiers, t)
	}
	data, err := offline.Default()
	if err != nil {
		errs = append(errs, err)
	}
	ttls := make([]time.Duration, 4)
	for i, f := range []struct{ name, v string }{{"latestTTL", cfg.LatestTTL}, {"historyTTL", cfg.HistoryTTL}, {"forecastTTL", cfg.ForecastTTL}, {"failureTTL", cfg.FailureTTL}} {
		if ttls[i], err = duration(f.name, f.v, 0); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("carbon sources: %w", err)
	}
	tiers = append(tiers, carbon.Tier{Source: offline.New(data, clk)})
	return carbon.NewChain(carbon.ChainConfig{Tiers: tiers, Clock: clk,
		LatestTTL: ttls[0], HistoryTTL: ttls[1], ForecastTTL: ttls[2], FailureTTL: ttls[3]})
}

func (cfg Config) configured(name string) bool {
	switch name {
	case electricitymaps.Name:
		return cfg.ElectricityMaps != nil
	case watttime.Name:
		return cfg.WattTime != nil
	case carbonaware.Name:
		return cfg.CarbonAware != nil
	}
	return false
}

func (cfg Config) tier(name string, getenv func(string) string, clk clock.PassiveClock, hc *http.Client) (carbon.Tier, error) {
	var src carbon.Source
	var budget Budget
	var err error
	switch name {
	case electricitymaps.Name:
		c := cfg.ElectricityMaps
		if c == nil {
			return carbon.Tier{}, errors.New(`"electricitymaps" is listed but electricityMaps is not configured`)
		}
		if getenv(EnvElectricityMapsToken) == "" {
			return carbon.Tier{}, fmt.Errorf("electricityMaps: %s is not set (set it from a Secret)", EnvElectricityMapsToken)
		}
		budget = c.Budget
		src, err = electricitymaps.New(electricitymaps.Config{BaseURL: c.BaseURL, Token: getenv(EnvElectricityMapsToken),
			EmissionFactorType: c.EmissionFactorType, Options: apiclient.Options{HTTP: hc}, Clock: clk})
	case watttime.Name:
		c := cfg.WattTime
		if c == nil {
			return carbon.Tier{}, errors.New(`"watttime" is listed but wattTime is not configured`)
		}
		if getenv(EnvWattTimeUsername) == "" || getenv(EnvWattTimePassword) == "" {
			return carbon.Tier{}, fmt.Errorf("wattTime: %s and %s must both be set (set them from a Secret)", EnvWattTimeUsername, EnvWattTimePassword)
		}
		if len(c.Regions) == 0 {
			return carbon.Tier{}, errors.New(`wattTime.regions is empty: map grid zones to WattTime regions, e.g. {"US-CAL-CISO": "CAISO_NORTH"}`)
		}
		budget = c.Budget
		src, err = watttime.New(watttime.Config{BaseURL: c.BaseURL, Username: getenv(EnvWattTimeUsername), Password: getenv(EnvWattTimePassword),
			Regions: c.Regions, SignalType: c.SignalType, Options: apiclient.Options{HTTP: hc}, Clock: clk})
	case carbonaware.Name:
		c := cfg.CarbonAware
		if c == nil {
			return carbon.Tier{}, errors.New(`"carbonaware" is listed but carbonAware is not configured`)
		}
		if len(c.Locations) == 0 {
			return carbon.Tier{}, errors.New(`carbonAware.locations is empty: map grid zones to the SDK's locations, e.g. {"NL": "westeurope"}`)
		}
		budget = c.Budget
		src, err = carbonaware.New(carbonaware.Config{BaseURL: c.BaseURL, Locations: c.Locations, Signal: c.Signal, Options: apiclient.Options{HTTP: hc}, Clock: clk})
	default:
		return carbon.Tier{}, fmt.Errorf("%q is not a service: use %s", name, strings.Join([]string{electricitymaps.Name, watttime.Name, carbonaware.Name}, ", "))
	}
	if err != nil {
		return carbon.Tier{}, err
	}
	return budget.tier(name, src)
}

func (b Budget) tier(name string, src carbon.Source) (carbon.Tier, error) {
	rpm, burst := b.RequestsPerMinute, b.Burst
	if rpm < 0 || burst < 0 {
		return carbon.Tier{}, fmt.Errorf("%s: requestsPerMinute %g and burst %d must not be negative", name, rpm, burst)
	}
	if rpm == 0 {
		rpm = DefaultRequestsPerMinute
	}
	if burst == 0 {
		burst = DefaultBurst
	}
	timeout, err := duration(name+".timeout", b.Timeout, DefaultTimeout)
	if err != nil {
		return carbon.Tier{}, err
	}
	return carbon.Tier{Source: src, Limiter: rate.NewLimiter(rate.Limit(rpm/60), burst), Timeout: timeout}, nil
}

func duration(field, v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s %q is not a positive Go duration such as \"30s\" or \"10m\"", field, v)
	}
	return d, nil
}
