# Data residency: when the VM names a jurisdiction ("EU", "EEA"), a region
# stays only when it lies in it (data.meridian.clouds.residency).
package meridian.vm.residency

import data.meridian.clouds.regions
import data.meridian.clouds.residency

deny[key] := sprintf("region %s is not in %s", [r, input.residency]) if {
	object.get(input, "residency", "") != ""
	some p, r
	regions[p][r]
	not r in object.get(residency, [input.residency, p], [])
	key := concat("/", [p, r])
}

invalid contains msg if {
	object.get(input, "residency", "") != ""
	not residency[input.residency]
	msg := sprintf("residency: unknown jurisdiction %q; valid: %s", [input.residency, concat(", ", sort({j | some j, _ in residency}))])
}
