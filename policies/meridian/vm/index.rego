# Region index: every region of every provider, keyed "provider/region", so
# that each policy looks regions up instead of walking the data per rule.
# These are complete rules: OPA evaluates each once per query.
package meridian.vm.index

import data.meridian.clouds.regions

# by_key["provider/region"] is [provider, region].
by_key := {concat("/", [p, r]): [p, r] | some p, rs in regions; some r, _ in rs}

# all is every "provider/region".
all := {k | some k, _ in by_key}

# key_of[region] is its "provider/region" (region names are unique across
# providers; a data test checks it).
key_of := {pr[1]: k | some k, pr in by_key}

# names is every region name.
names := {r | some _, rs in regions; some r, _ in rs}
