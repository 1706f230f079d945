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
import data.meridian.vm.index

# fitting[p][name] is [cpuMilli, memoryMiB] of each of provider p's sizes
# with the VM's CPU and memory; providers without one are left out.
fitting := {p: sizes |
	some p, info in instances
	sizes := {n: [s.cpuMilli, s.memoryMiB] | some n, s in info.sizes; s.cpuMilli >= input.cpuMilli; s.memoryMiB >= input.memoryMiB}
	count(sizes) > 0
}

# offer(p, r) is the size the VM gets in provider p's region r: the cheapest
# fitting one there, with its price and whether that price is verified.
offer(p, r) := o if {
	prices := instances[p].pricePerHour[r]
	options := {[prices[n], s[0], s[1], n] | some n, s in fitting[p]}
	count(options) > 0
	best := min(options)
	o := {"name": best[3], "pricePerHour": best[0], "verified": object.get(instances[p], "verified", false)}
}

# cheapest["provider/region"] is offer for every region, for queries that
# want them all; the decision asks offer only for the regions left.
cheapest := {k: o | some k, pr in index.by_key; o := offer(pr[0], pr[1])}

largest(p, field) := max({s[field] | some s in object.get(instances, [p, "sizes"], {})} | {0})

# too_small[p] is why no size of provider p fits.
too_small := {p: msg |
	some p, _ in regions
	not fitting[p]
	msg := sprintf("no %s instance size has %d mCPU and %d MiB; the largest has %d mCPU and %d MiB", [p, input.cpuMilli, input.memoryMiB, largest(p, "cpuMilli"), largest(p, "memoryMiB")])
}

# unpriced is every region of a provider with a fitting size but no price
# list for the region.
unpriced := {index.key_of[r] |
	some p, _ in fitting
	some r in object.keys(object.get(regions, p, {})) - object.keys(object.get(instances[p], "pricePerHour", {}))
}

denied := union({index.of_provider(p) | some p, _ in too_small}) | unpriced

reason(k) := too_small[p] if {
	p := index.by_key[k][0]
} else := sprintf("no %s instance price is known for region %s", [index.by_key[k][0], index.by_key[k][1]])

deny := {k: reason(k) | some k in denied}

invalid contains sprintf("cpuMilli: must be above zero, got %v", [object.get(input, "cpuMilli", 0)]) if not object.get(input, "cpuMilli", 0) > 0

invalid contains sprintf("memoryMiB: must be above zero, got %v", [object.get(input, "memoryMiB", 0)]) if not object.get(input, "memoryMiB", 0) > 0
