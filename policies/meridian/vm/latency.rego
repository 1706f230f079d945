# Latency limit: when the VM sets maxLatencyMs, a region stays only when the
# round-trip time from the VM's origin region to it is at most that.
# Round-trip times are data.meridian.clouds.latency.rtt[origin][region]: the
# origin's row is looked up once per decision.
package meridian.vm.latency

import data.meridian.clouds.latency
import data.meridian.vm.index

# origin is the VM's origin region, "" without one.
origin := object.get(input, "originRegion", "")

limit := object.get(input, "maxLatencyMs", 0)

limited if limit > 0

# from_origin[r] is the round-trip time from the origin to region r, in
# milliseconds (0 to the origin itself).
from_origin := object.union(object.get(latency.rtt, origin, {}), {origin: 0})

# rtt is the round-trip time from the origin to region r.
rtt(r) := from_origin[r]

# A region is judged when the VM has a limit, or an origin from which
# candidates are ranked: a region with no known round-trip time from the
# origin cannot be ranked, so it is removed too.
judged if limited

judged if origin != ""

too_far := {index.key_of[r] | limited; some r, ms in from_origin; ms > limit}

unknown := {index.key_of[r] | judged; some r in index.names - object.keys(from_origin)}

denied := too_far | unknown

# reasons(keys) is why each of keys is removed: the regions too far and
# those without a known round-trip time are written apart, without a
# function call per region.
reasons(keys) := object.union(
	{k: sprintf("round-trip time from %s is %v ms, above the limit of %v ms", [origin, from_origin[index.by_key[k][1]], input.maxLatencyMs]) |
		some k in keys - unknown
	},
	{k: unknown_reason | some k in keys & unknown},
)

unknown_reason := sprintf("no round-trip time from %q is known", [origin])


invalid contains "originRegion: required when maxLatencyMs is set" if {
	limited
	origin == ""
}

invalid contains msg if {
	origin != ""
	not index.key_of[origin]
	msg := sprintf("originRegion: unknown region %q; valid: %s", [origin, concat(", ", sort(index.names))])
}
