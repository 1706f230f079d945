# Region pin: when the VM names a region, every other region is removed.
package meridian.vm.pin

import data.meridian.vm.index

pinned := object.get(input, "region", "")

denied := index.all - {object.get(index.key_of, pinned, "")} if pinned != ""

denied := set() if pinned == ""

reasons(keys) := {k: msg | msg := sprintf("the VM is pinned to region %s", [pinned]); some k in keys}


invalid contains msg if {
	pinned != ""
	not index.key_of[pinned]
	msg := sprintf("region: unknown region %q; valid: %s", [pinned, concat(", ", sort(index.names))])
}
