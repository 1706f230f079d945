package meridian.sharing.incoming_test

import data.meridian.sharing.incoming

cfg := {
	"trustedPeers": [],
	"priceCeilings": {"EUR": {"cpu": 0.1, "memory": 0.02}},
	"minimumShape": {"cpuMilli": 500, "memoryMiB": 512},
}

shapes := [
	{"name": "big", "cpuMilli": 4000, "memoryMiB": 8192, "pods": 50, "count": 2},
	{"name": "tiny", "cpuMilli": 250, "memoryMiB": 256, "pods": 10, "count": 1},
]

ad_input(prices, currency) := {
	"consumer": "home",
	"peer": {"clusterID": "prov-a", "namespace": "peer-prov-a", "username": "system:serviceaccount:peer-prov-a:agent"},
	"advertisement": {"name": "prov-a", "type": "Full", "currency": currency, "prices": prices, "availability": shapes},
}

test_accepts_large_shapes_only if {
	d := incoming.decision with input as ad_input([{"resource": "cpu", "perUnitHour": 0.05}], "EUR") with data.meridian.sharing.config as cfg
	d.accepted
	d.reason == "PolicyAccepted"
	d.acceptedShapes == ["big"]
}

test_refuses_price_above_ceiling if {
	d := incoming.decision with input as ad_input([{"resource": "cpu", "perUnitHour": 0.5}], "EUR") with data.meridian.sharing.config as cfg
	not d.accepted
	d.reason == "PriceAboveCeiling"
	contains(d.message, "cpu costs 0.5 EUR")
}

test_refuses_untrusted_peer if {
	c := object.union(cfg, {"trustedPeers": ["prov-b"]})
	d := incoming.decision with input as ad_input([], "") with data.meridian.sharing.config as c
	d.reason == "UntrustedPeer"
}

test_refuses_unknown_currency if {
	d := incoming.decision with input as ad_input([{"resource": "cpu", "perUnitHour": 0.01}], "JPY") with data.meridian.sharing.config as cfg
	d.reason == "CurrencyNotAccepted"
}

test_refuses_small_shapes if {
	c := object.union(cfg, {"minimumShape": {"cpuMilli": 8000, "memoryMiB": 512}})
	d := incoming.decision with input as ad_input([], "") with data.meridian.sharing.config as c
	d.reason == "NoShapeLargeEnough"
}

test_free_sharing_needs_no_currency if {
	d := incoming.decision with input as ad_input([], "") with data.meridian.sharing.config as cfg
	d.accepted
}
