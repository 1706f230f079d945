# Latency limit: when the VM sets maxLatencyMs, a region stays only when the
# round-trip time from the VM's origin region to it is at most that.
# Round-trip times are data.meridian.clouds.latency.rtt[origin][region].
package meridian.vm.latency

import data.meridian.clouds.latency
import data.meridian.clouds.regions

# rtt is the round-trip time from the origin to region r, in milliseconds.
rtt(r) := 0 if r == origin

rtt(r) := latency.rtt[origin][r] if r != origin

limited if object.get(input, "maxLatencyMs", 0) > 0

# origin is the VM's origin region, "" without one.
origin := object.get(input, "originRegion", "")

# A region is judged when the VM has a limit, or an origin from which
# candidates are ranked: a region with no known round-trip time from the
# origin cannot be ranked, so it is removed too.
judged if limited

judged if origin != ""

deny[key] := reason if {
	judged
	some p, r
	regions[p][r]
	reason := why(r)
	key := concat("/", [p, r])
}

why(r) := sprintf("round-trip time from %s is %v ms, above the limit of %v ms", [input.originRegion, rtt(r), input.maxLatencyMs]) if {
	limited
	rtt(r) > input.maxLatencyMs
} else := sprintf("no round-trip time from %q is known", [origin]) if {
	not rtt(r)
}

names := {r | some _, rs in regions; some r, _ in rs}

invalid contains "originRegion: required when maxLatencyMs is set" if {
	limited
	object.get(input, "originRegion", "") == ""
}

invalid contains msg if {
	object.get(input, "originRegion", "") != ""
	not input.originRegion in names
	msg := sprintf("originRegion: unknown region %q; valid: %s", [input.originRegion, concat(", ", sort(names))])
}
