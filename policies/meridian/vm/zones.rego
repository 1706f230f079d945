# Grid zones: a region stays only when the grid zone that powers it (an
# Electricity Maps zone key) is known, because the carbon scheduler reads
# intensities by zone. regions and zone map both ways.
package meridian.vm.zones

import data.meridian.clouds.regions
import data.meridian.vm.index

# zone is the grid zone of a provider's region.
zone(p, r) := z if {
	z := regions[p][r].zone
	z != ""
}

# regions_of is every region of provider p powered by grid zone z.
regions_of(p, z) := {r | some r, info in regions[p]; info.zone == z}

deny := {k: sprintf("no grid zone is known for region %s", [pr[1]]) | some k, pr in index.by_key; not zone(pr[0], pr[1])}
