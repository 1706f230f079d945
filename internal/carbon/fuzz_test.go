package carbon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// FuzzParseCapacityConfig reads --carbon-capacity files as the controller
// does at start (ParseCapacityConfig, then Capacity): neither may panic,
// an error names the field, and every region and zone of an accepted
// config gets a positive capacity.
func FuzzParseCapacityConfig(f *testing.F) {
	// The example of docs/carbon.md.
	f.Add([]byte("regions:\n  azure/westeurope: 64\n  gcp/europe-west4: 32\nzones:\n  NL: 80\n"))
	f.Add([]byte(`{"regions":{"azure/westeurope":0.5},"zones":{}}`))
	f.Add([]byte("regions:\n  westeurope: -1\nzone:\n  NL: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := carbon.ParseCapacityConfig(data)
		if err != nil {
			if !strings.Contains(err.Error(), "invalid capacity config") {
				t.Fatalf("error does not say what it is about: %v", err)
			}
			return
		}
		capacity, err := cfg.Capacity(nil)
		if err != nil {
			if !strings.Contains(err.Error(), "regions[") && !strings.Contains(err.Error(), "zones[") {
				t.Fatalf("error does not name the field: %v", err)
			}
			return
		}
		if cfg.Empty() != (capacity == nil) {
			t.Fatalf("config empty %v, capacity %v", cfg.Empty(), capacity)
		}
		at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
		for region := range cfg.Regions {
			if milli, ok := capacity.At(region, at); !ok || milli <= 0 {
				t.Errorf("region %q of %g vCPU got capacity %dm (set %v)", region, cfg.Regions[region], milli, ok)
			}
		}
		for zone := range cfg.Zones {
			if milli, ok := capacity.At(carbon.ZoneKey(zone), at); !ok || milli <= 0 {
				t.Errorf("zone %q of %g vCPU got capacity %dm (set %v)", zone, cfg.Zones[zone], milli, ok)
			}
		}
	})
}
