package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/carbon/sources"
)

// carbonFlags configure the carbon scheduler that meridian controller
// builds for the CloudVM webhook and the placement's Carbon score.
type carbonFlags struct {
	sourcesFile  string
	capacityFile string
	extraZones   []string
	interval     time.Duration
	horizon      time.Duration
}

func (f *carbonFlags) addFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.sourcesFile, "carbon-sources", "", "YAML or JSON file of the carbon intensity services to ask before the offline data (order, electricityMaps, wattTime, carbonAware; credentials from $"+sources.EnvElectricityMapsToken+", $"+sources.EnvWattTimeUsername+" and $"+sources.EnvWattTimePassword+"); empty: the offline data shipped in the binary only, which need no credentials")
	fl.StringVar(&f.capacityFile, "carbon-capacity", "", "YAML or JSON file of the vCPU the carbon scheduler may plan per region (regions: {azure/westeurope: 64}) and per grid zone (zones: {NL: 80}); empty: every region unlimited")
	fl.StringSliceVar(&f.extraZones, "carbon-zones", nil, "grid zones to read intensities for besides those of the policy data's regions, e.g. the gridZone of member Clusters (comma-separated)")
	fl.DurationVar(&f.interval, "carbon-refresh-interval", carbon.DefaultRefreshInterval, "time between two readings of every grid zone's intensity and forecast")
	fl.DurationVar(&f.horizon, "carbon-horizon", carbon.DefaultRefreshHorizon, "how far ahead forecasts are read: the latest start the scheduler can plan")
}

// carbonScheduler is what the controller's carbon flags build: the Planner
// the webhook and the placement read, and the Refresher that keeps its
// intensities current.
type carbonScheduler struct {
	planner   *carbon.Planner
	refresher *carbon.Refresher
	// history is the source chain, which the CloudVM controller reads to
	// account the emissions of finished runs.
	history carbon.Source
	// summary is what the start-up line says of it.
	summary string
}

// buildCarbon reads the carbon flags' files and builds the source chain,
// the Planner with its capacities and a Refresher for every grid zone of
// regions (the policy data's "provider/region" -> zone) and --carbon-zones.
// getenv reads the services' credentials.
func buildCarbon(f carbonFlags, regions map[string]string, getenv func(string) string) (*carbonScheduler, error) {
	if f.interval <= 0 {
		return nil, fmt.Errorf("invalid --carbon-refresh-interval %s: must be greater than zero, e.g. 15m", f.interval)
	}
	if f.horizon < time.Hour {
		return nil, fmt.Errorf("invalid --carbon-horizon %s: must be at least 1h, e.g. 48h", f.horizon)
	}
	var cfg sources.Config
	if f.sourcesFile != "" {
		data, err := os.ReadFile(f.sourcesFile)
		if err != nil {
			return nil, fmt.Errorf("failed to read --carbon-sources: %w", err)
		}
		if cfg, err = sources.ParseConfig(data); err != nil {
			return nil, fmt.Errorf("invalid --carbon-sources %s: %w", f.sourcesFile, err)
		}
	}
	chain, err := sources.Build(cfg, getenv, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("invalid --carbon-sources %s: %w", orDefault(f.sourcesFile), err)
	}
	var capCfg carbon.CapacityConfig
	if f.capacityFile != "" {
		data, err := os.ReadFile(f.capacityFile)
		if err != nil {
			return nil, fmt.Errorf("failed to read --carbon-capacity: %w", err)
		}
		if capCfg, err = carbon.ParseCapacityConfig(data); err != nil {
			return nil, fmt.Errorf("invalid --carbon-capacity %s: %w", f.capacityFile, err)
		}
	}
	capacity, err := capCfg.Capacity(regions)
	if err != nil {
		return nil, fmt.Errorf("invalid --carbon-capacity %s: %w", f.capacityFile, err)
	}
	zones, err := carbonZones(regions, f.extraZones)
	if err != nil {
		return nil, err
	}
	planner := carbon.NewPlanner(carbon.PlannerOptions{Capacity: capacity})
	capacityNote := "capacity unlimited (no --carbon-capacity)"
	if !capCfg.Empty() {
		capacityNote = "capacity " + capCfg.String()
	}
	return &carbonScheduler{
		planner:   planner,
		history:   chain,
		refresher: &carbon.Refresher{Source: chain, Zones: zones, Target: planner, Interval: f.interval, Horizon: f.horizon},
		summary:   fmt.Sprintf("carbon scheduler on %d grid zones from %s every %s, %s", len(zones), chain.Name(), f.interval, capacityNote),
	}, nil
}

// carbonZones are the distinct zones of regions and extra, sorted.
func carbonZones(regions map[string]string, extra []string) ([]string, error) {
	var zones []string
	for _, z := range regions {
		zones = append(zones, z)
	}
	for i, z := range extra {
		z = strings.TrimSpace(z)
		if z == "" {
			return nil, fmt.Errorf("invalid --carbon-zones: entry %d is empty", i)
		}
		zones = append(zones, z)
	}
	zones = slices.DeleteFunc(zones, func(z string) bool { return z == "" })
	slices.Sort(zones)
	return slices.Compact(zones), nil
}

func orDefault(file string) string {
	if file == "" {
		return "(default: offline data only)"
	}
	return file
}
