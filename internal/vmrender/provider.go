package vmrender

import (
	"regexp"
)

// provider is what validation knows of one provider: the shapes of its
// regions and instance types, and how long a CloudVM name may be so that
// every object the chart derives from it stays within the provider's
// naming limits.
type provider struct {
	// maxName is the longest CloudVM name the provider's limits allow.
	maxName int
	// nameLimit says which limit maxName comes from.
	nameLimit string
	// startsWithLetter is set when the provider's names must begin with a
	// letter.
	startsWithLetter bool
	region           *regexp.Regexp
	regionExample    string
	instanceType     *regexp.Regexp
	instanceExample  string
	// needsSSHKey is set when the provider creates no Linux VM without a
	// login key.
	needsSSHKey bool
}

// providers are the providers the chart renders for, by Input.Provider.
var providers = map[string]provider{
	"azure": {
		// The VirtualNetwork "<name>-vnet" is the tightest: Azure allows 64
		// characters for a virtual network (and a Linux VM) name.
		maxName:         64 - len("-vnet"),
		nameLimit:       "Azure virtual network names (<name>-vnet) have at most 64 characters",
		region:          regexp.MustCompile(`^[a-z][a-z0-9]*$`),
		regionExample:   "westeurope",
		instanceType:    regexp.MustCompile(`^(Standard|Basic)_[A-Za-z0-9_-]+$`),
		instanceExample: "Standard_D2s_v5",
		needsSSHKey:     true,
	},
	"gcp": {
		// Compute Engine names match [a-z]([-a-z0-9]*[a-z0-9])? with at most
		// 63 characters; "<name>-network" is the longest.
		maxName:          63 - len("-network"),
		nameLimit:        "Compute Engine names (<name>-network) have at most 63 characters and begin with a letter",
		startsWithLetter: true,
		region:           regexp.MustCompile(`^[a-z]+(-[a-z]+)+[0-9]+$`),
		regionExample:    "europe-west4",
		instanceType:     regexp.MustCompile(`^[a-z][a-z0-9]*-[a-z0-9-]+$`),
		instanceExample:  "e2-standard-2",
	},
	"aws": {
		// EC2 names are Name tags (256 characters); the Kubernetes names,
		// DNS labels, are the limit.
		maxName:         63,
		nameLimit:       "CloudVM names are DNS labels of at most 63 characters",
		region:          regexp.MustCompile(`^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]+$`),
		regionExample:   "eu-west-1",
		instanceType:    regexp.MustCompile(`^[a-z][a-z0-9-]*\.[a-z0-9]+$`),
		instanceExample: "m6i.large",
	},
}
