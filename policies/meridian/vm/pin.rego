# Region pin: when the VM names a region, every other region is removed.
package meridian.vm.pin

import data.meridian.clouds.regions

deny[key] := sprintf("the VM is pinned to region %s", [input.region]) if {
	object.get(input, "region", "") != ""
	some p, r
	regions[p][r]
	r != input.region
	key := concat("/", [p, r])
}

invalid contains msg if {
	object.get(input, "region", "") != ""
	not input.region in {r | some _, rs in regions; some r, _ in rs}
	msg := sprintf("region: unknown region %q; valid: %s", [input.region, concat(", ", sort({r | some _, rs in regions; some r, _ in rs}))])
}
