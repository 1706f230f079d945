# Provider eligibility: a region stays only when its provider is among the
# VM's allowed providers (all when none are listed) and is the pinned
# provider when one is pinned.
#
# Like every policy package, it defines denied, the set of "provider/region"
# it removes, and reasons(keys), why it removes each of keys (asked once per
# decision, for the regions it was the first to remove).
package meridian.vm.providers

import data.meridian.clouds.regions
import data.meridian.vm.index

# known is every provider that has regions.
known := {p | some p, _ in regions}

# excluded[p] is why provider p is removed, for each provider removed.
excluded := {p: reason | some p, _ in regions; reason := why(p)}

denied := union({index.of_provider(p) | some p, _ in excluded})

reasons(keys) := {k: excluded[index.by_key[k][0]] | some k in keys}


why(p) := sprintf("the VM is pinned to provider %s", [input.provider]) if {
	input.provider != ""
	input.provider != p
} else := sprintf("provider %s is not among the VM's providers %v", [p, input.providers]) if {
	count(object.get(input, "providers", [])) > 0
	not p in input.providers
}

# invalid names every input field this policy cannot use.
invalid contains msg if {
	some i, p in object.get(input, "providers", [])
	not p in known
	msg := sprintf("providers[%d]: unknown provider %q; valid: %s", [i, p, concat(", ", sort(known))])
}

invalid contains msg if {
	object.get(input, "provider", "") != ""
	not input.provider in known
	msg := sprintf("provider: unknown provider %q; valid: %s", [input.provider, concat(", ", sort(known))])
}
