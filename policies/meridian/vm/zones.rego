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

denied := {index.key_of[r] | some _, rs in regions; some r, info in rs; object.get(info, "zone", "") == ""}

reasons(keys) := {k: concat("", ["no grid zone is known for region ", index.by_key[k][1]]) | some k in keys}

