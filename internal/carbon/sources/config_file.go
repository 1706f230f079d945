package sources

import (
	"fmt"

	"sigs.k8s.io/yaml"
)

// ParseConfig reads a Config from YAML or JSON, as `meridian controller
// --carbon-sources` gives it; an unknown field is an error that names it.
// Credentials never appear in it (see the Env constants).
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return Config{}, fmt.Errorf("invalid carbon sources config (fields: order, electricityMaps, wattTime, carbonAware, latestTTL, historyTTL, forecastTTL, failureTTL): %w", err)
	}
	return cfg, nil
}
