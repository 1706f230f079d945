package policy

import (
	"context"
	"fmt"
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
)

// RegionsPath is where the policy data keep the cloud regions:
// provider -> region -> {"zone": grid zone, ...}.
const RegionsPath = "/meridian/clouds/regions"

// RegionZones returns the grid zone of every region in the data of the
// bundle revision evaluated now, keyed "provider/region" (as
// carbon.RegionKey names them): the zones whose intensities the carbon
// scheduler needs, and the regions a capacity may be declared for. It reads
// the revision's in-memory store and logs no decision.
func (e *Engine) RegionZones(ctx context.Context) (map[string]string, error) {
	r := e.current.Load()
	v, err := storage.ReadOne(ctx, r.store, storage.MustParsePath(RegionsPath))
	if err != nil {
		return nil, fmt.Errorf("failed to read data%s of bundle revision %q: %w", RegionsPath, r.name, err)
	}
	if av, ok := v.(ast.Value); ok {
		if v, err = ast.JSON(av); err != nil {
			return nil, fmt.Errorf("failed to read data%s of bundle revision %q: %w", RegionsPath, r.name, err)
		}
	}
	providers, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("data%s of bundle revision %q is a %T, not an object of providers", RegionsPath, r.name, v)
	}
	out := map[string]string{}
	for provider, regions := range providers {
		rs, ok := regions.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("data%s.%s of bundle revision %q is a %T, not an object of regions", RegionsPath, provider, r.name, regions)
		}
		for region, info := range rs {
			zone, _ := info.(map[string]any)["zone"].(string)
			out[provider+"/"+region] = zone
		}
	}
	return out, nil
}

// GridZones returns the distinct grid zones of RegionZones, sorted.
func (e *Engine) GridZones(ctx context.Context) ([]string, error) {
	regions, err := e.RegionZones(ctx)
	if err != nil {
		return nil, err
	}
	var zones []string
	for _, z := range regions {
		if z != "" && !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	slices.Sort(zones)
	return zones, nil
}
