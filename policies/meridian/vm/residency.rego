# Data residency: when the VM names a jurisdiction ("EU", "EEA"), a region
# stays only when it lies in it (data.meridian.clouds.residency).
package meridian.vm.residency

import data.meridian.clouds.residency
import data.meridian.vm.index

jurisdiction := object.get(input, "residency", "")

# inside is every "provider/region" in the jurisdiction.
inside := {k | some _, rs in object.get(residency, jurisdiction, {}); some r in rs; k := index.key_of[r]}

denied := index.all - inside if jurisdiction != ""

denied := set() if jurisdiction == ""

reasons(keys) := {k: concat("", ["region ", index.by_key[k][1], " is not in ", jurisdiction]) | some k in keys}


invalid contains msg if {
	jurisdiction != ""
	not residency[jurisdiction]
	msg := sprintf("residency: unknown jurisdiction %q; valid: %s", [jurisdiction, concat(", ", sort({j | some j, _ in residency}))])
}
