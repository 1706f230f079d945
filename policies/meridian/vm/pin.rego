# Region pin: when the VM names a region, every other region is removed.
package meridian.vm.pin

import data.meridian.vm.index

pinned := object.get(input, "region", "")

reason := sprintf("the VM is pinned to region %s", [pinned]) if pinned != ""

deny := {k: reason | pinned != ""; some k, pr in index.by_key; pr[1] != pinned}

invalid contains msg if {
	pinned != ""
	not pinned in index.names
	msg := sprintf("region: unknown region %q; valid: %s", [pinned, concat(", ", sort(index.names))])
}
