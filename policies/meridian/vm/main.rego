# The VM decision: which regions a cloud VM may go to, and why every other
# region was removed. The webhook (through policy.Engine.VM) queries
# data.meridian.vm.decision with the VM's needs as input; field names are the
# same for CREATE and UPDATE.
#
# Each policy package defines deny["provider/region"] := reason over every
# region, independently of the others; the pipeline below runs them in order,
# so a region is removed by the first policy that denies it and every later
# step lists what is left.
package meridian.vm

import data.meridian.clouds.regions
import data.meridian.vm.latency
import data.meridian.vm.pin
import data.meridian.vm.providers
import data.meridian.vm.residency
import data.meridian.vm.sizes
import data.meridian.vm.zones

pipeline := [
	{"policy": "providers", "deny": providers.deny},
	{"policy": "pin", "deny": pin.deny},
	{"policy": "latency", "deny": latency.deny},
	{"policy": "residency", "deny": residency.deny},
	{"policy": "zones", "deny": zones.deny},
	{"policy": "sizes", "deny": sizes.deny},
]

all_regions := {key | some p, r; regions[p][r]; key := concat("/", [p, r])}

# first_denial[key] is the index of the first policy that denies key.
first_denial[key] := min(ds) if {
	some key in all_regions
	ds := {i | some i, step in pipeline; step.deny[key]}
	count(ds) > 0
}

# left_after(i) is the regions left once policies 0..i have run.
left_after(i) := {key | some key in all_regions; object.get(first_denial, key, count(pipeline)) > i}

steps := [{"policy": step.policy, "left": sort(left_after(i))} | some i, step in pipeline]

left := {key | some key in all_regions; not first_denial[key]}

removed := [r |
	some t in sort([[i, key] | some key, i in first_denial])
	parts := split(t[1], "/")
	r := {
		"provider": parts[0],
		"region": parts[1],
		"policy": pipeline[t[0]].policy,
		"reason": pipeline[t[0]].deny[t[1]],
	}
]

# candidates are the regions left, the origin's best first: by round-trip
# time from the origin (zero without one), then price, then name.
candidates := [c |
	some t in sort([[latency_of(r), sizes.smallest[p].pricePerHour, p, r] |
		some key in left
		parts := split(key, "/")
		p := parts[0]
		r := parts[1]
	])
	c := {
		"provider": t[2],
		"region": t[3],
		"zone": zones.zone(t[2], t[3]),
		"instanceType": sizes.smallest[t[2]].name,
		"pricePerHour": t[1],
		"latencyMs": t[0],
	}
]

latency_of(r) := latency.rtt(r) if latency.origin != ""

latency_of(r) := 0 if latency.origin == ""

invalid := sort(((providers.invalid | pin.invalid) | (latency.invalid | residency.invalid)) | sizes.invalid)

decision := {
	"invalid": invalid,
	"candidates": candidates,
	"steps": steps,
	"removed": removed,
}
