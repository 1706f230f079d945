# Data residency: when the VM names a jurisdiction ("EU", "EEA"), a region
# stays only when it lies in it (data.meridian.clouds.residency).
package meridian.vm.residency

import data.meridian.clouds.residency
import data.meridian.vm.index

jurisdiction := object.get(input, "residency", "")

# inside is every "provider/region" in the jurisdiction.
inside := {concat("/", [p, r]) | some p, rs in object.get(residency, jurisdiction, {}); some r in rs}

deny := {k: sprintf("region %s is not in %s", [pr[1], jurisdiction]) |
	jurisdiction != ""
	some k, pr in index.by_key
	not inside[k]
}

invalid contains msg if {
	jurisdiction != ""
	not residency[jurisdiction]
	msg := sprintf("residency: unknown jurisdiction %q; valid: %s", [jurisdiction, concat(", ", sort({j | some j, _ in residency}))])
}
