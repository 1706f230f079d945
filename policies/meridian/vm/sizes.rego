# Instance sizes: in each region, the cheapest instance size of its provider
# that has the VM's CPU and memory, at that region's price (the smaller on
# ties). A region stays only when its provider has a size that fits and a
# price list for the region (data.meridian.clouds.instances).
#
# instances[p] = {verified, source, sizes: {name: {cpuMilli, memoryMiB}},
# pricePerHour: {region: {name: price}}, order: [name], orderIn: {region:
# [name]}}; verified is false when the prices were not taken from a recorded
# source (SOURCES.md); order and orderIn rank the sizes by price.
package meridian.vm.sizes

import data.meridian.clouds.instances
import data.meridian.clouds.regions
import data.meridian.vm.index

# first(info, rank) is the first size in rank that has the VM's CPU and
# memory. A provider's rank orders its sizes by price in a region, cheapest
# first, then by fewer mCPU and less memory (hack/policydata writes it; a
# data test checks it against the prices): its first fitting size is the
# region's cheapest.
first(info, rank) := rank[i] if {
	i := min({i |
		some i, n in rank
		s := info.sizes[n]
		s.cpuMilli >= input.cpuMilli
		s.memoryMiB >= input.memoryMiB
	})
}

# pick[p] is provider p's size in every region that ranks its sizes in the
# provider's common order: found once per provider, not once per region.
# A provider with no size that fits has none.
pick := {p: n | some p, info in instances; n := first(info, info.order)}

# pick_in["provider/region"] is the size in each region that ranks its
# sizes otherwise (orderIn).
pick_in := {concat("/", [p, r]): n |
	some p, info in instances
	some r, rank in object.get(info, "orderIn", {})
	n := first(info, rank)
}

# verified[p] is whether provider p's prices come from a recorded source.
verified := {p: object.get(info, "verified", false) | some p, info in instances}

# chosen(p, r) is provider p's size for the VM in region r.
chosen(p, r) := object.get(pick_in, concat("/", [p, r]), pick[p])

# offer(p, r) is the size the VM gets in provider p's region r, with its
# price there (in the provider's currency) and whether that price is
# verified.
offer(p, r) := o if {
	n := chosen(p, r)
	o := {"name": n, "pricePerHour": instances[p].pricePerHour[r][n], "currency": instances[p].currency, "verified": verified[p]}
}

# cheapest["provider/region"] is offer for every region, for queries that
# want them all; the decision asks offer only for the regions left.
cheapest := {k: o | some k, pr in index.by_key; o := offer(pr[0], pr[1])}

largest(p, field) := max({s[field] | some s in object.get(instances, [p, "sizes"], {})} | {0})

# too_small[p] is why no size of provider p fits.
too_small := {p: msg |
	some p, _ in regions
	not pick[p]
	msg := sprintf("no %s instance size has %d mCPU and %d MiB; the largest has %d mCPU and %d MiB", [p, input.cpuMilli, input.memoryMiB, largest(p, "cpuMilli"), largest(p, "memoryMiB")])
}

# unpriced is every region of a provider with a fitting size but no price
# list for the region.
unpriced := {index.key_of[r] |
	some p, _ in pick
	some r in object.keys(object.get(regions, p, {})) - object.keys(object.get(instances[p], "pricePerHour", {}))
}

denied := union({index.of_provider(p) | some p, _ in too_small}) | unpriced

reasons(keys) := {k: why(index.by_key[k]) | some k in keys}

why(pr) := too_small[pr[0]]

why(pr) := sprintf("no %s instance price is known for region %s", [pr[0], pr[1]]) if not too_small[pr[0]]


invalid contains sprintf("cpuMilli: must be above zero, got %v", [object.get(input, "cpuMilli", 0)]) if not object.get(input, "cpuMilli", 0) > 0

invalid contains sprintf("memoryMiB: must be above zero, got %v", [object.get(input, "memoryMiB", 0)]) if not object.get(input, "memoryMiB", 0) > 0
