# Instance sizes: each provider's smallest instance size that has the VM's
# CPU and memory, the cheapest on ties. A region stays only when its provider
# has one (data.meridian.clouds.instances).
package meridian.vm.sizes

import data.meridian.clouds.instances
import data.meridian.clouds.regions

fits(p) := [t |
	some t in instances[p]
	t.cpuMilli >= input.cpuMilli
	t.memoryMiB >= input.memoryMiB
]

# smallest[p] is provider p's instance size for the VM.
smallest[p] := t if {
	some p, _ in instances
	f := fits(p)
	count(f) > 0
	best := sort([[s.pricePerHour, s.cpuMilli, s.memoryMiB, s.name] | some s in f])[0]
	some t in f
	t.name == best[3]
}

deny[key] := reason if {
	some p, r
	regions[p][r]
	not smallest[p]
	reason := sprintf("no %s instance size has %d mCPU and %d MiB; the largest has %d mCPU and %d MiB", [p, input.cpuMilli, input.memoryMiB, max({t.cpuMilli | some t in object.get(instances, p, [])} | {0}), max({t.memoryMiB | some t in object.get(instances, p, [])} | {0})])
	key := concat("/", [p, r])
}

invalid contains sprintf("cpuMilli: must be above zero, got %v", [object.get(input, "cpuMilli", 0)]) if not object.get(input, "cpuMilli", 0) > 0

invalid contains sprintf("memoryMiB: must be above zero, got %v", [object.get(input, "memoryMiB", 0)]) if not object.get(input, "memoryMiB", 0) > 0
