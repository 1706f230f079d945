package meridian.vm_test

import data.meridian.clouds
import data.meridian.vm

# A small world, so that each test reads on its own.
fixture_regions := {
	"azure": {
		"westeurope": {"zone": "NL"},
		"uksouth": {"zone": "GB"},
		"eastus": {"zone": "US-MIDA-PJM"},
	},
	"aws": {
		"eu-west-1": {"zone": "IE"},
		"us-east-1": {"zone": "US-MIDA-PJM"},
	},
	"gcp": {
		"europe-west4": {"zone": "NL"},
		"nowhere1": {"zone": ""},
	},
}

fixture_keys := {
	"byKey": {k: [p, r] | some p, rs in fixture_regions; some r, _ in rs; k := concat("/", [p, r])},
	"keyOf": {r: concat("/", [p, r]) | some p, rs in fixture_regions; some r, _ in rs},
	"byProvider": {p: {concat("/", [p, r]): r | some r, _ in rs} | some p, rs in fixture_regions},
}

fixture_latency := {"rtt": {
	"westeurope": {"uksouth": 12, "eastus": 89, "eu-west-1": 18, "us-east-1": 88, "europe-west4": 4, "nowhere1": 300},
}}

fixture_instances := {
	"azure": {
		"verified": false,
		"currency": "USD",
		"sizes": {
			"big": {"cpuMilli": 8000, "memoryMiB": 32768},
			"small": {"cpuMilli": 2000, "memoryMiB": 8192},
			"small-cheaper": {"cpuMilli": 2000, "memoryMiB": 8192},
		},
		"pricePerHour": {
			"westeurope": {"big": 0.4, "small": 0.1, "small-cheaper": 0.09},
			# small-cheaper is not cheaper everywhere
			"uksouth": {"big": 0.4, "small": 0.1, "small-cheaper": 0.12},
			"eastus": {"big": 0.4, "small": 0.1, "small-cheaper": 0.09},
		},
		"order": ["small-cheaper", "small", "big"],
		"orderIn": {"uksouth": ["small", "small-cheaper", "big"]},
	},
	"aws": {
		"verified": true,
		"currency": "USD",
		"sizes": {"m": {"cpuMilli": 2000, "memoryMiB": 8192}},
		"pricePerHour": {"eu-west-1": {"m": 0.11}, "us-east-1": {"m": 0.1}},
		"order": ["m"],
	},
	"gcp": {
		"verified": true,
		"currency": "USD",
		"sizes": {"e": {"cpuMilli": 4000, "memoryMiB": 16384}},
		"pricePerHour": {"europe-west4": {"e": 0.13}, "nowhere1": {"e": 0.13}},
		"order": ["e"],
	},
}

fixture_residency := {"EU": {"azure": ["westeurope"], "aws": ["eu-west-1"], "gcp": ["europe-west4", "nowhere1"]}}

decide(vm_input) := d if {
	d := vm.decision with input as vm_input
		with data.meridian.clouds.regions as fixture_regions
		with data.meridian.clouds.keys as fixture_keys
		with data.meridian.clouds.latency as fixture_latency
		with data.meridian.clouds.instances as fixture_instances
		with data.meridian.clouds.residency as fixture_residency
}

small := {"name": "ns/vm", "cpuMilli": 2000, "memoryMiB": 8192}

keys(d) := {concat("/", [c.provider, c.region]) | some c in d.candidates}

removal(d, key) := r if {
	some r in d.removed
	concat("/", [r.provider, r.region]) == key
}

test_every_provider_is_compared if {
	d := decide(small)
	d.invalid == []
	{c.provider | some c in d.candidates} == {"azure", "aws", "gcp"}
	# the region without a grid zone is removed, and says so
	removal(d, "gcp/nowhere1").policy == "zones"
}

test_smallest_size_cheapest_on_ties if {
	d := decide(small)
	some c in d.candidates
	c.region == "westeurope"
	c.instanceType == "small-cheaper"
	c.pricePerHour == 0.09
	c.currency == "USD"
	c.zone == "NL"
}

test_prices_are_per_region if {
	d := decide(small)
	some uk in d.candidates
	uk.region == "uksouth"
	uk.instanceType == "small"
	uk.pricePerHour == 0.1
	some ie in d.candidates
	ie.region == "eu-west-1"
	ie.pricePerHour == 0.11
}

test_unverified_prices_are_named if {
	d := decide(small)
	d.unverifiedPrices == ["azure"]
	every c in d.candidates {
		c.priceVerified == (c.provider != "azure")
	}
	decide(object.union(small, {"providers": ["aws"]})).unverifiedPrices == []
}

test_region_without_prices_is_removed if {
	d := vm.decision with input as small
		with data.meridian.clouds.regions as fixture_regions
		with data.meridian.clouds.keys as fixture_keys
		with data.meridian.clouds.latency as fixture_latency
		with data.meridian.clouds.instances as json.remove(fixture_instances, ["aws/pricePerHour/us-east-1"])
		with data.meridian.clouds.residency as fixture_residency
	removal(d, "aws/us-east-1") == {"provider": "aws", "region": "us-east-1", "policy": "sizes", "reason": "no aws instance price is known for region us-east-1"}
}

test_size_that_fits_nowhere_is_explained if {
	d := decide({"cpuMilli": 16000, "memoryMiB": 8192})
	d.candidates == []
	r := removal(d, "aws/us-east-1")
	r.policy == "sizes"
	r.reason == "no aws instance size has 16000 mCPU and 8192 MiB; the largest has 2000 mCPU and 8192 MiB"
}

test_providers_restrict if {
	d := decide(object.union(small, {"providers": ["aws"]}))
	keys(d) == {"aws/eu-west-1", "aws/us-east-1"}
	startswith(removal(d, "azure/westeurope").reason, "provider azure is not among the VM's providers")
}

test_latency_limit_from_origin if {
	d := decide(object.union(small, {"originRegion": "westeurope", "maxLatencyMs": 20}))
	keys(d) == {"azure/westeurope", "azure/uksouth", "aws/eu-west-1", "gcp/europe-west4"}
	# the origin's best first
	d.candidates[0].region == "westeurope"
	d.candidates[0].latencyMs == 0
	d.candidates[1].region == "europe-west4"
	removal(d, "aws/us-east-1") == {"provider": "aws", "region": "us-east-1", "policy": "latency", "reason": "round-trip time from westeurope is 88 ms, above the limit of 20 ms"}
}

test_eu_residency if {
	d := decide(object.union(small, {"residency": "EU"}))
	keys(d) == {"azure/westeurope", "aws/eu-west-1", "gcp/europe-west4"}
	removal(d, "azure/uksouth") == {"provider": "azure", "region": "uksouth", "policy": "residency", "reason": "region uksouth is not in EU"}
}

test_steps_list_what_is_left_in_order if {
	d := decide(object.union(small, {"providers": ["azure"], "residency": "EU"}))
	[s.policy | some s in d.steps] == ["providers", "pin", "latency", "residency", "zones", "sizes"]
	d.steps[0].left == ["azure/eastus", "azure/uksouth", "azure/westeurope"]
	d.steps[3].left == ["azure/westeurope"]
	d.steps[5].left == ["azure/westeurope"]
}

test_region_pin if {
	d := decide(object.union(small, {"region": "eu-west-1"}))
	keys(d) == {"aws/eu-west-1"}
	removal(d, "azure/westeurope").reason == "the VM is pinned to region eu-west-1"
}

test_impossible_pin_is_explained if {
	d := decide(object.union(small, {"provider": "azure", "region": "eu-west-1"}))
	d.candidates == []
	d.invalid == []
	removal(d, "aws/eu-west-1") == {"provider": "aws", "region": "eu-west-1", "policy": "providers", "reason": "the VM is pinned to provider azure"}
	removal(d, "azure/westeurope").policy == "pin"
}

test_bad_input_names_field_and_valid_values if {
	d := decide({"cpuMilli": 0, "memoryMiB": 1024, "providers": ["ibm"], "region": "mars-1", "residency": "XX", "maxLatencyMs": 10})
	d.invalid == [
		"cpuMilli: must be above zero, got 0",
		"originRegion: required when maxLatencyMs is set",
		"providers[0]: unknown provider \"ibm\"; valid: aws, azure, gcp",
		"region: unknown region \"mars-1\"; valid: eastus, eu-west-1, europe-west4, nowhere1, uksouth, us-east-1, westeurope",
		"residency: unknown jurisdiction \"XX\"; valid: EU",
	]
}

test_zone_mapping_both_ways if {
	data.meridian.vm.zones.zone("azure", "westeurope") == "NL" with data.meridian.clouds.regions as fixture_regions
	data.meridian.vm.zones.regions_of("azure", "US-MIDA-PJM") == {"eastus"} with data.meridian.clouds.regions as fixture_regions
}

# The shipped data documents agree with each other.

test_data_region_names_are_unique_across_providers if {
	names := [r | some _, rs in clouds.regions; some r, _ in rs]
	count(names) == count({n | some n in names})
}

test_data_every_region_has_a_zone if {
	missing := {[p, r] | some p, rs in clouds.regions; some r, info in rs; object.get(info, "zone", "") == ""}
	missing == set()
}

test_data_keys_index_the_regions if {
	clouds.keys.byKey == {k: [p, r] | some p, rs in clouds.regions; some r, _ in rs; k := concat("/", [p, r])}
	clouds.keys.keyOf == {r: concat("/", [p, r]) | some p, rs in clouds.regions; some r, _ in rs}
	clouds.keys.byProvider == {p: {concat("/", [p, r]): r | some r, _ in rs} | some p, rs in clouds.regions}
}

test_data_round_trip_times_cover_every_pair if {
	names := {r | some _, rs in clouds.regions; some r, _ in rs}
	missing := {[a, b] | some a in names; some b in names; a != b; not clouds.latency.rtt[a][b]}
	missing == set()
}

test_unknown_round_trip_times_are_explained if {
	d := vm.decision with input as object.union(small, {"originRegion": "westeurope"})
		with data.meridian.clouds.regions as fixture_regions
		with data.meridian.clouds.keys as fixture_keys
		with data.meridian.clouds.latency as json.remove(fixture_latency, ["rtt/westeurope/nowhere1"])
		with data.meridian.clouds.instances as fixture_instances
		with data.meridian.clouds.residency as fixture_residency
	removal(d, "gcp/nowhere1") == {"provider": "gcp", "region": "nowhere1", "policy": "latency", "reason": "no round-trip time from \"westeurope\" is known"}
}

test_unknown_origin_is_explained if {
	d := decide(object.union(small, {"originRegion": "mars-1"}))
	d.candidates == []
	removal(d, "azure/westeurope").reason == "no round-trip time from \"mars-1\" is known"
}

test_data_residency_names_known_regions if {
	unknown := {[j, p, r] | some j, ps in clouds.residency; some p, rs in ps; some r in rs; not clouds.regions[p][r]}
	unknown == set()
}

test_data_every_provider_has_instance_sizes if {
	every p, _ in clouds.regions {
		count(clouds.instances[p].sizes) > 0
	}
}

test_data_every_size_has_a_price_in_every_region if {
	missing := {[p, r, n] |
		some p, rs in clouds.regions
		some r, _ in rs
		some n, _ in clouds.instances[p].sizes
		not clouds.instances[p].pricePerHour[r][n] > 0
	}
	missing == set()
}

# rank(p, r) is the rank of provider p's sizes in region r, as the policy reads it.
rank(p, r) := object.get(clouds.instances[p], ["orderIn", r], clouds.instances[p].order)

test_data_size_ranks_follow_the_prices if {
	wrong := {[p, r, i] |
		some p, info in clouds.instances
		some r, prices in info.pricePerHour
		ord := rank(p, r)
		count(ord) == count(info.sizes)
		some i in numbers.range(1, count(ord) - 1)
		a := ord[i - 1]
		b := ord[i]
		[prices[a], info.sizes[a].cpuMilli, info.sizes[a].memoryMiB, a] > [prices[b], info.sizes[b].cpuMilli, info.sizes[b].memoryMiB, b]
	}
	wrong == set()
	every p, info in clouds.instances {
		every r, _ in info.pricePerHour {
			{n | some n in rank(p, r)} == {n | some n, _ in info.sizes}
		}
	}
}

# The scheduler compares the candidates' prices, so every provider's are in
# one currency, an ISO 4217 code.
test_data_prices_are_in_one_currency if {
	every _, info in clouds.instances {
		regex.match(`^[A-Z]{3}$`, info.currency)
	}
	count({info.currency | some info in clouds.instances}) == 1
}

test_data_prices_say_whether_they_are_verified if {
	every _, info in clouds.instances {
		is_boolean(info.verified)
		info.source != ""
	}
}
