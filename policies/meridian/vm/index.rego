# Region index: every region of every provider, keyed "provider/region", so
# that each policy looks regions up, and combines whole sets of them with
# set operations, instead of walking and re-keying the region data in every
# decision. The index is a data document generated from regions
# (data.meridian.clouds.keys, hack/policydata); a data test checks that the
# two agree.
package meridian.vm.index

import data.meridian.clouds.keys

# by_key["provider/region"] is [provider, region].
by_key := keys.byKey

# key_of[region] is its "provider/region" (region names are unique across
# providers; a data test checks it).
key_of := keys.keyOf

# of_provider(p) is every "provider/region" of provider p.
of_provider(p) := object.keys(object.get(keys.byProvider, p, {}))

# all is every "provider/region".
all := object.keys(by_key)

# names is every region name.
names := object.keys(key_of)
