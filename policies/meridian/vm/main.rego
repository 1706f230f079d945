# The VM decision: which regions a cloud VM may go to, and why every other
# region was removed. The webhook (through policy.Engine.VM) queries
# data.meridian.vm.decision with the VM's needs as input; field names are the
# same for CREATE and UPDATE.
#
# Each policy package judges every region independently of the others and
# defines denied, the set of "provider/region" it removes, and reasons(keys).
# The pipeline below runs them in order: what a step leaves is what the
# previous step left minus its policy's denied set (set operations, each
# evaluated once), so a region is removed by the first policy that denies it
# and every later step lists what is left. A policy writes reasons only for
# the regions it was the first to remove.
package meridian.vm

import data.meridian.clouds.instances
import data.meridian.clouds.regions
import data.meridian.vm.index
import data.meridian.vm.latency
import data.meridian.vm.pin
import data.meridian.vm.providers
import data.meridian.vm.residency
import data.meridian.vm.sizes
import data.meridian.vm.zones

left_providers := index.all - providers.denied

left_pin := left_providers - pin.denied

left_latency := left_pin - latency.denied

left_residency := left_latency - residency.denied

left_zones := left_residency - zones.denied

left := left_zones - sizes.denied

# pipeline is each step: its policy, what was left before it, what it left
# and why it removed the regions it removed.
pipeline := [
	["providers", index.all, left_providers, providers.reasons(index.all - left_providers)],
	["pin", left_providers, left_pin, pin.reasons(left_providers - left_pin)],
	["latency", left_pin, left_latency, latency.reasons(left_pin - left_latency)],
	["residency", left_latency, left_residency, residency.reasons(left_latency - left_residency)],
	["zones", left_residency, left_zones, zones.reasons(left_residency - left_zones)],
	["sizes", left_zones, left, sizes.reasons(left_zones - left)],
]

steps := [{"policy": s[0], "left": sort(s[2])} | some s in pipeline]

removed := [r |
	some s in pipeline
	some k in sort(object.keys(s[3]))
	pr := index.by_key[k]
	r := {"provider": pr[0], "region": pr[1], "policy": s[0], "reason": s[3][k]}
]

# candidates are the regions left, the origin's best first: by round-trip
# time from the origin (zero without one), then price, then name.
candidates := [c |
	some t in sort([[object.get(latency.from_origin, r, 0), price, p, r, n] |
		some k in left
		pr := index.by_key[k]
		p := pr[0]
		r := pr[1]
		n := object.get(sizes.pick_in, k, sizes.pick[p])
		price := instances[p].pricePerHour[r][n]
	])
	c := {
		"provider": t[2],
		"region": t[3],
		"zone": regions[t[2]][t[3]].zone,
		"instanceType": t[4],
		"pricePerHour": t[1],
		"currency": instances[t[2]].currency,
		"priceVerified": sizes.verified[t[2]],
		"latencyMs": t[0],
	}
]

# unverified_prices is every provider among the candidates whose prices were
# not taken from a recorded source, so that the decision can say so.
unverified_prices := sort({c.provider | some c in candidates; not c.priceVerified})

invalid := sort(((providers.invalid | pin.invalid) | (latency.invalid | residency.invalid)) | sizes.invalid)

decision := {
	"invalid": invalid,
	"candidates": candidates,
	"steps": steps,
	"removed": removed,
	"unverifiedPrices": unverified_prices,
}
