# Incoming advertisements (seed 002, 4.3): whether this cluster accepts the
# capacity a peer advertises, and which of its node shapes.
#
# input = {consumer, peer: {clusterID, namespace, username, region},
# advertisement: {name, type, region, currency, prices: [{resource,
# perUnitHour}], availability: [{name, cpuMilli, memoryMiB, pods, count}]}}.
# The agent fills peer from the Peer whose namespace holds the
# advertisement (who wrote it), never from what the advertisement claims;
# perUnitHour is per core of cpu, per GiB of memory and storage, per unit of
# anything else, per hour.
#
# data.meridian.sharing.config configures it: trustedPeers (cluster IDs;
# empty trusts every Peer this cluster has), priceCeilings per currency and
# resource (perUnitHour; a currency with none is refused when the
# advertisement has prices, a resource with none is not limited) and
# minimumShape (a smaller shape is not accepted).
#
# decision = {accepted, reason, message, acceptedShapes}. The reason is
# recorded in the Advertisement's status.reason, an enum: PolicyAccepted,
# and the refusals UntrustedPeer, CurrencyNotAccepted, PriceAboveCeiling,
# NoShapeLargeEnough, PolicyRefused. Another word is recorded as
# PolicyAccepted or PolicyRefused and leads the message.
package meridian.sharing.incoming

import data.meridian.sharing.config

adv := input.advertisement

default trusted := false

trusted if count(config.trustedPeers) == 0

trusted if input.peer.clusterID in config.trustedPeers

priced if count(adv.prices) > 0

currency_refused if {
	priced
	not config.priceCeilings[adv.currency]
}

above_ceiling contains sprintf("%s costs %v %s per unit-hour, above the ceiling of %v", [p.resource, p.perUnitHour, adv.currency, c]) if {
	some p in adv.prices
	c := config.priceCeilings[adv.currency][p.resource]
	p.perUnitHour > c
}

large_enough contains s.name if {
	some s in adv.availability
	s.cpuMilli >= config.minimumShape.cpuMilli
	s.memoryMiB >= config.minimumShape.memoryMiB
}

decision := {
	"accepted": false,
	"reason": "UntrustedPeer",
	"message": sprintf("peer %q is not among the trusted peers %v", [input.peer.clusterID, config.trustedPeers]),
} if {
	not trusted
} else := {
	"accepted": false,
	"reason": "CurrencyNotAccepted",
	"message": sprintf("prices in %q have no ceiling here; accepted currencies: %v", [adv.currency, object.keys(config.priceCeilings)]),
} if {
	currency_refused
} else := {
	"accepted": false,
	"reason": "PriceAboveCeiling",
	"message": concat("; ", sort(above_ceiling)),
} if {
	count(above_ceiling) > 0
} else := {
	"accepted": false,
	"reason": "NoShapeLargeEnough",
	"message": sprintf("no node shape has at least %d mCPU and %d MiB", [config.minimumShape.cpuMilli, config.minimumShape.memoryMiB]),
} if {
	count(large_enough) == 0
} else := {
	"accepted": true,
	"reason": "PolicyAccepted",
	"message": sprintf("%d of %d shapes accepted from %q", [count(large_enough), count(adv.availability), input.peer.clusterID]),
	"acceptedShapes": sort(large_enough),
}
