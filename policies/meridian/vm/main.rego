# The VM decision: which regions a cloud VM may go to, and why every other
# region was removed. The webhook (through policy.Engine.VM) queries
# data.meridian.vm.decision with the VM's needs as input; field names are the
# same for CREATE and UPDATE.
#
# Each policy package defines deny, an object from "provider/region" to the
# reason, over every region, independently of the others. The pipeline below
# runs them in order: what a step leaves is what the previous step left minus
# the keys its policy denies (set differences, evaluated once each), so a
# region is removed by the first policy that denies it and every later step
# lists what is left.
package meridian.vm

import data.meridian.vm.index
import data.meridian.vm.latency
import data.meridian.vm.pin
import data.meridian.vm.providers
import data.meridian.vm.residency
import data.meridian.vm.sizes
import data.meridian.vm.zones

left_providers := index.all - object.keys(providers.deny)

left_pin := left_providers - object.keys(pin.deny)

left_latency := left_pin - object.keys(latency.deny)

left_residency := left_latency - object.keys(residency.deny)

left_zones := left_residency - object.keys(zones.deny)

left := left_zones - object.keys(sizes.deny)

# pipeline is each step: its policy, what was left before it, what it left
# and its denials.
pipeline := [
	["providers", index.all, left_providers, providers.deny],
	["pin", left_providers, left_pin, pin.deny],
	["latency", left_pin, left_latency, latency.deny],
	["residency", left_latency, left_residency, residency.deny],
	["zones", left_residency, left_zones, zones.deny],
	["sizes", left_zones, left, sizes.deny],
]

steps := [{"policy": s[0], "left": sort(s[2])} | some s in pipeline]

removed := [r |
	some s in pipeline
	some k in sort(s[1] - s[2])
	pr := index.by_key[k]
	r := {"provider": pr[0], "region": pr[1], "policy": s[0], "reason": s[3][k]}
]

# candidates are the regions left, the origin's best first: by round-trip
# time from the origin (zero without one), then price, then name.
candidates := [c |
	some t in sort([[latency_of(pr[1]), o.pricePerHour, pr[0], pr[1], o] |
		some k in left
		pr := index.by_key[k]
		o := sizes.offer(pr[0], pr[1])
	])
	c := {
		"provider": t[2],
		"region": t[3],
		"zone": zones.zone(t[2], t[3]),
		"instanceType": t[4].name,
		"pricePerHour": t[1],
		"priceVerified": t[4].verified,
		"latencyMs": t[0],
	}
]

latency_of(r) := latency.rtt(r) if latency.origin != ""

latency_of(r) := 0 if latency.origin == ""

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
