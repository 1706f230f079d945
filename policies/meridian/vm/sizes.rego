# Instance sizes: in each region, the cheapest instance size of its provider
# that has the VM's CPU and memory, at that region's price (the smaller on
# ties). A region stays only when its provider has a size that fits and a
# price list for the region (data.meridian.clouds.instances).
#
# instances[p] = {verified, source, sizes: {name: {cpuMilli, memoryMiB}},
# pricePerHour: {region: {name: price}}}; verified is false when the prices
# were not taken from a recorded source (SOURCES.md).
package meridian.vm.sizes

import data.meridian.clouds.instances
import data.meridian.clouds.regions

# fitting[p] is the names of provider p's sizes with the VM's CPU and memory.
fitting := {p: names |
	some p, info in instances
	names := {n | some n, s in info.sizes; s.cpuMilli >= input.cpuMilli; s.memoryMiB >= input.memoryMiB}
	count(names) > 0
}

# offer(p, r) is the size the VM gets in provider p's region r: the cheapest
# fitting one there, with its price and whether that price is verified.
offer(p, r) := o if {
	prices := instances[p].pricePerHour[r]
	options := {[prices[n], s.cpuMilli, s.memoryMiB, n] |
		some n in fitting[p]
		s := instances[p].sizes[n]
	}
	count(options) > 0
	best := min(options)
	o := {"name": best[3], "pricePerHour": best[0], "verified": object.get(instances[p], "verified", false)}
}

# cheapest["provider/region"] is offer for every region, for queries that
# want them all; the decision asks offer only for the regions left.
cheapest := {concat("/", [p, r]): o | some p, rs in regions; some r, _ in rs; o := offer(p, r)}

largest(p, field) := max({s[field] | some s in object.get(instances, [p, "sizes"], {})} | {0})

too_small := {p: msg |
	some p, _ in regions
	not fitting[p]
	msg := sprintf("no %s instance size has %d mCPU and %d MiB; the largest has %d mCPU and %d MiB", [p, input.cpuMilli, input.memoryMiB, largest(p, "cpuMilli"), largest(p, "memoryMiB")])
}

unpriced := {concat("/", [p, r]): sprintf("no %s instance price is known for region %s", [p, r]) |
	some p, rs in regions
	fitting[p]
	some r, _ in rs
	not instances[p].pricePerHour[r]
}

deny := object.union(unpriced, {concat("/", [p, r]): msg | some p, msg in too_small; some r, _ in regions[p]})

invalid contains sprintf("cpuMilli: must be above zero, got %v", [object.get(input, "cpuMilli", 0)]) if not object.get(input, "cpuMilli", 0) > 0

invalid contains sprintf("memoryMiB: must be above zero, got %v", [object.get(input, "memoryMiB", 0)]) if not object.get(input, "memoryMiB", 0) > 0
