package carbon

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// CapacityConfig is the declared capacity of regions and grid zones in vCPU,
// as a file (YAML or JSON) gives it to `meridian controller
// --carbon-capacity`:
//
//	regions:            # "provider/region": vCPU at any hour
//	  azure/westeurope: 64
//	  gcp/europe-west4: 32
//	zones:              # grid zone: vCPU of every region it powers together
//	  NL: 80
//
// A region or zone not listed is unlimited.
type CapacityConfig struct {
	Regions map[string]float64 `json:"regions,omitempty"`
	Zones   map[string]float64 `json:"zones,omitempty"`
}

// ParseCapacityConfig reads a CapacityConfig from YAML or JSON; an unknown
// field is an error that names it.
func ParseCapacityConfig(data []byte) (CapacityConfig, error) {
	var c CapacityConfig
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return CapacityConfig{}, fmt.Errorf("invalid capacity config (want regions: {provider/region: vCPU} and zones: {zone: vCPU}): %w", err)
	}
	return c, nil
}

// Empty reports whether the config declares no capacity (everything is
// unlimited).
func (c CapacityConfig) Empty() bool { return len(c.Regions) == 0 && len(c.Zones) == 0 }

// Capacity validates the config and returns its Capacity, nil when it is
// empty. known maps every region the policies know (RegionKey, e.g.
// "azure/westeurope") to its grid zone; a region or zone it does not hold is
// an error naming the field, so that a typo never leaves a region unlimited.
// A nil known checks only the form.
func (c CapacityConfig) Capacity(known map[string]string) (*Capacity, error) {
	if c.Empty() {
		return nil, nil
	}
	zones := map[string]bool{}
	for _, z := range known {
		zones[z] = true
	}
	capacity := NewCapacity()
	var errs []error
	for _, key := range sortedKeys(c.Regions) {
		field := fmt.Sprintf("regions[%q]", key)
		provider, region, ok := strings.Cut(key, "/")
		switch {
		case !ok || provider == "" || region == "":
			errs = append(errs, fmt.Errorf("%s: a region is named provider/region, e.g. azure/westeurope", field))
			continue
		case known != nil:
			if _, ok := known[key]; !ok {
				errs = append(errs, fmt.Errorf("%s: the policy data know no such region%s", field, suggest(key, known)))
				continue
			}
		}
		milli, err := milliCPU(field, c.Regions[key])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		capacity.Set(key, milli)
	}
	for _, zone := range sortedKeys(c.Zones) {
		field := fmt.Sprintf("zones[%q]", zone)
		if known != nil && !zones[zone] {
			errs = append(errs, fmt.Errorf("%s: no region of the policy data is in grid zone %q", field, zone))
			continue
		}
		milli, err := milliCPU(field, c.Zones[zone])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		capacity.Set(ZoneKey(zone), milli)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid capacity config: %w", err)
	}
	return capacity, nil
}

// String summarises the config for a log line, e.g. "2 regions, 1 zone".
func (c CapacityConfig) String() string {
	if c.Empty() {
		return "unlimited"
	}
	return fmt.Sprintf("%d region(s), %d zone(s) declared, others unlimited", len(c.Regions), len(c.Zones))
}

// maxVCPU bounds a declared capacity: far beyond any region, and far
// below where its millicores overflow an int64.
const maxVCPU = 1e9

func milliCPU(field string, vcpu float64) (int64, error) {
	if !(vcpu > 0) || math.IsInf(vcpu, 0) {
		return 0, fmt.Errorf("%s: %g vCPU must be a number greater than zero", field, vcpu)
	}
	// Below half a millicore the capacity would round to none at all.
	if vcpu < 0.001 || vcpu > maxVCPU {
		return 0, fmt.Errorf("%s: %g vCPU must be from 0.001 to %g", field, vcpu, float64(maxVCPU))
	}
	return int64(math.Round(vcpu * 1000)), nil
}

// suggest names a known region of the same provider, or of the same name.
func suggest(key string, known map[string]string) string {
	provider, region, _ := strings.Cut(key, "/")
	var same []string
	for k := range known {
		p, r, _ := strings.Cut(k, "/")
		if r == region || (p == provider && strings.HasPrefix(r, region[:min(len(region), 4)])) {
			same = append(same, k)
		}
	}
	if len(same) == 0 {
		return ""
	}
	slices.Sort(same)
	return fmt.Sprintf(" (did you mean %s?)", strings.Join(same[:min(len(same), 3)], ", "))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
