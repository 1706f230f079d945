//go:build ignore

// Command policydata regenerates the generated data documents of the default
// policy bundle: the inter-region latency matrix
// (policies/meridian/clouds/latency/data.json), the region index
// (policies/meridian/clouds/keys/data.json) and the instance sizes with
// their prices per region (policies/meridian/clouds/instances/data.json).
//
// Latency. Azure-to-Azure round-trip times are Microsoft's published P95
// figures (azure-latency-p95.json, transcribed from the azure-docs table). No
// published matrix with a compatible licence covers GCP and AWS, so every
// other pair is estimated from the great-circle distance between the regions'
// locations with a line fitted, by least squares, to the published Azure
// pairs: rtt = intercept + slope * km. The fit and the count of pairs it used
// are written beside the matrix so that a reader can tell the two apart.
//
// Keys. The region index (keys/data.json) is derived from regions/data.json.
//
// Prices. GCP's sizes and per-region prices come from gcp-prices.json, an
// extract of Cyclenerd/google-cloud-pricing-cost-calculator's pricing.yml
// (Apache-2.0) at the commit it records. With -gcp-pricing the extract is
// first rebuilt from a checkout of that file:
//
//	git clone https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator /tmp/gcp-pricing
//	git -C /tmp/gcp-pricing checkout fd66b26ff84fee5cdd94f341ea89206e76c06b99
//	go run hack/policydata/main.go -gcp-pricing /tmp/gcp-pricing/pricing.yml -gcp-commit fd66b26ff84fee5cdd94f341ea89206e76c06b99
//
// No dataset with a compatible licence could be had for Azure's and AWS's
// prices: unverified-prices.json holds hand-transcribed list prices for one
// reference region each, and the generated document marks those providers'
// prices "verified": false, with the same price in every region.
//
// Run it from the repository root:
//
//	go run hack/policydata/main.go
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

const (
	regionsPath = "policies/meridian/clouds/regions/data.json"
	azurePath   = "hack/policydata/azure-latency-p95.json"
	outPath     = "policies/meridian/clouds/latency/data.json"

	gcpPricesPath   = "hack/policydata/gcp-prices.json"
	unverifiedPath  = "hack/policydata/unverified-prices.json"
	instancesPath   = "policies/meridian/clouds/instances/data.json"
	keysPath        = "policies/meridian/clouds/keys/data.json"
	gcpPricingRepo  = "github.com/Cyclenerd/google-cloud-pricing-cost-calculator"
	gcpPricingFile  = "pricing.yml"
	gcpPricingLicen = "Apache-2.0"
)

// gcpSizes are the GCP machine types shipped: E2 standard, high-CPU and
// high-memory (the shared-core e2-micro, -small and -medium are left out:
// their vCPUs are not the VM's).
var gcpSizes = []string{
	"e2-highcpu-2", "e2-highcpu-4", "e2-highcpu-8", "e2-highcpu-16",
	"e2-standard-2", "e2-standard-4", "e2-standard-8", "e2-standard-16", "e2-standard-32",
	"e2-highmem-2", "e2-highmem-4", "e2-highmem-8", "e2-highmem-16",
}

type region struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

func main() {
	gcpPricing := flag.String("gcp-pricing", "", "rebuild "+gcpPricesPath+" from this copy of "+gcpPricingRepo+"'s "+gcpPricingFile)
	gcpCommit := flag.String("gcp-commit", "", "the commit of "+gcpPricingRepo+" that -gcp-pricing was checked out at (recorded in the extract)")
	flag.Parse()
	if *gcpPricing != "" {
		if *gcpCommit == "" {
			fmt.Fprintln(os.Stderr, "-gcp-commit is required with -gcp-pricing: the extract records where its prices came from")
			os.Exit(2)
		}
		if err := extractGCP(*gcpPricing, *gcpCommit); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := keys(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := instances(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	var providers map[string]map[string]region
	if err := readJSON(regionsPath, &providers); err != nil {
		return err
	}
	var azure struct {
		RTT map[string]map[string]float64 `json:"rtt"`
	}
	if err := readJSON(azurePath, &azure); err != nil {
		return err
	}

	regions := map[string]region{}
	for p, rs := range providers {
		for name, r := range rs {
			if _, dup := regions[name]; dup {
				return fmt.Errorf("region name %q is used by two providers (the second is %s); the latency matrix is keyed by name", name, p)
			}
			regions[name] = r
		}
	}

	// Fit rtt = a + b*km on the published pairs.
	var n, sx, sy, sxx, sxy float64
	for from, row := range azure.RTT {
		for to, ms := range row {
			a, okA := regions[from]
			b, okB := regions[to]
			if !okA || !okB {
				return fmt.Errorf("published pair %s -> %s names a region that is not in %s", from, to, regionsPath)
			}
			x := km(a, b)
			n++
			sx += x
			sy += ms
			sxx += x * x
			sxy += x * ms
		}
	}
	slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	intercept := (sy - slope*sx) / n

	names := make([]string, 0, len(regions))
	for name := range regions {
		names = append(names, name)
	}
	sort.Strings(names)
	rtt := map[string]map[string]int{}
	for _, from := range names {
		rtt[from] = map[string]int{}
		for _, to := range names {
			if from == to {
				continue
			}
			if ms, ok := azure.RTT[from][to]; ok {
				rtt[from][to] = int(ms)
				continue
			}
			est := intercept + slope*km(regions[from], regions[to])
			rtt[from][to] = int(math.Max(1, math.Round(est)))
		}
	}
	out := map[string]any{
		"rtt": rtt,
		"model": map[string]any{
			"interceptMs":    math.Round(intercept*100) / 100,
			"msPerKm":        math.Round(slope*1e5) / 1e5,
			"publishedPairs": int(n),
			"note":           "pairs of two Azure regions are Microsoft's published P95 round-trip times; every other pair is interceptMs + msPerKm * great-circle km, fitted to the published pairs",
		},
	}
	return writeJSON(outPath, out)
}

// km is the great-circle distance between two regions.
func km(a, b region) float64 {
	const earthKm = 6371.0
	rad := math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLon := (b.Lon - a.Lon) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthKm * math.Asin(math.Sqrt(h))
}

// keys writes the region index the policies look regions up in, so that no
// decision rebuilds it: byKey["provider/region"] = [provider, region],
// keyOf[region] = "provider/region" and byProvider[provider] = {"provider/region": region}.
func keys() error {
	var providers map[string]map[string]region
	if err := readJSON(regionsPath, &providers); err != nil {
		return err
	}
	byKey := map[string][2]string{}
	keyOf := map[string]string{}
	byProvider := map[string]map[string]string{}
	for p, rs := range providers {
		for r := range rs {
			if other, dup := keyOf[r]; dup {
				return fmt.Errorf("region name %q is used by two providers (%s and %s); the policies key regions by name", r, other, p)
			}
			byKey[p+"/"+r] = [2]string{p, r}
			keyOf[r] = p + "/" + r
			if byProvider[p] == nil {
				byProvider[p] = map[string]string{}
			}
			byProvider[p][p+"/"+r] = r
		}
	}
	if err := os.MkdirAll(strings.TrimSuffix(keysPath, "/data.json"), 0o755); err != nil {
		return err
	}
	return writeJSON(keysPath, map[string]any{"byKey": byKey, "keyOf": keyOf, "byProvider": byProvider})
}

// size is one instance size.
type size struct {
	CPUMilli  int64 `json:"cpuMilli"`
	MemoryMiB int64 `json:"memoryMiB"`
}

// gcpExtract is gcp-prices.json: the shipped sizes and their hourly
// on-demand prices in every shipped region, and where they came from.
type gcpExtract struct {
	Source struct {
		Repository string `json:"repository"`
		Commit     string `json:"commit"`
		Path       string `json:"path"`
		License    string `json:"license"`
		Generated  string `json:"generated"`
		Copyright  string `json:"copyright"`
	} `json:"source"`
	Sizes        map[string]size               `json:"sizes"`
	PricePerHour map[string]map[string]float64 `json:"pricePerHour"`
}

// extractGCP rebuilds gcp-prices.json from Cyclenerd's pricing.yml.
func extractGCP(path, commit string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("failed to read %s: %w", path, err)
	}
	defer f.Close()
	var doc struct {
		About struct {
			Copyright string `yaml:"copyright"`
			Generated string `yaml:"generated"`
		} `yaml:"about"`
		Compute struct {
			Instance map[string]struct {
				CPU  float64 `yaml:"cpu"`
				RAM  float64 `yaml:"ram"`
				Cost map[string]struct {
					Hour float64 `yaml:"hour"`
				} `yaml:"cost"`
			} `yaml:"instance"`
		} `yaml:"compute"`
	}
	if err := yaml.NewDecoder(f).Decode(&doc); err != nil {
		return fmt.Errorf("failed to parse %s: %w", path, err)
	}
	var providers map[string]map[string]region
	if err := readJSON(regionsPath, &providers); err != nil {
		return err
	}
	var out gcpExtract
	out.Source.Repository = gcpPricingRepo
	out.Source.Commit = commit
	out.Source.Path = gcpPricingFile
	out.Source.License = gcpPricingLicen
	out.Source.Generated = doc.About.Generated
	out.Source.Copyright = strings.TrimSpace(strings.SplitN(strings.TrimSpace(doc.About.Copyright), "\n", 2)[0])
	out.Sizes = map[string]size{}
	out.PricePerHour = map[string]map[string]float64{}
	for _, name := range gcpSizes {
		it, ok := doc.Compute.Instance[name]
		if !ok {
			return fmt.Errorf("%s has no machine type %s", path, name)
		}
		out.Sizes[name] = size{CPUMilli: int64(math.Round(it.CPU * 1000)), MemoryMiB: int64(math.Round(it.RAM * 1024))}
		for r := range providers["gcp"] {
			c, ok := it.Cost[r]
			if !ok || c.Hour <= 0 {
				return fmt.Errorf("%s has no hourly price of %s in %s", path, name, r)
			}
			if out.PricePerHour[r] == nil {
				out.PricePerHour[r] = map[string]float64{}
			}
			out.PricePerHour[r][name] = c.Hour
		}
	}
	return writeJSON(gcpPricesPath, out)
}

// instances writes the instances document: per provider its sizes, its
// price of each in each of its regions, and whether those prices come from
// a recorded source.
func instances() error {
	var providers map[string]map[string]region
	if err := readJSON(regionsPath, &providers); err != nil {
		return err
	}
	var gcp gcpExtract
	if err := readJSON(gcpPricesPath, &gcp); err != nil {
		return err
	}
	var unverified map[string]struct {
		ReferenceRegion string `json:"referenceRegion"`
		Note            string `json:"note"`
		Sizes           map[string]struct {
			size
			PricePerHour float64 `json:"pricePerHour"`
		} `json:"sizes"`
	}
	if err := readJSON(unverifiedPath, &unverified); err != nil {
		return err
	}
	type provider struct {
		Verified     bool                          `json:"verified"`
		Source       string                        `json:"source"`
		Sizes        map[string]size               `json:"sizes"`
		PricePerHour map[string]map[string]float64 `json:"pricePerHour"`
		Order        []string                      `json:"order"`
		OrderIn      map[string][]string           `json:"orderIn,omitempty"`
	}
	out := map[string]provider{}
	for r := range providers["gcp"] {
		if _, ok := gcp.PricePerHour[r]; !ok {
			return fmt.Errorf("%s has no prices for GCP region %s; rebuild it with -gcp-pricing", gcpPricesPath, r)
		}
	}
	out["gcp"] = provider{
		Verified: true,
		Source: fmt.Sprintf("%s %s at commit %s (%s, %s; generated %s): on-demand hourly price in each region",
			gcp.Source.Repository, gcp.Source.Path, gcp.Source.Commit, gcp.Source.License, gcp.Source.Copyright, gcp.Source.Generated),
		Sizes:        gcp.Sizes,
		PricePerHour: map[string]map[string]float64{},
	}
	for r := range providers["gcp"] {
		out["gcp"].PricePerHour[r] = gcp.PricePerHour[r]
	}
	for p, u := range unverified {
		if _, ok := providers[p]; !ok {
			return fmt.Errorf("%s names provider %s, which has no regions", unverifiedPath, p)
		}
		pr := provider{
			Verified:     false,
			Source:       fmt.Sprintf("UNVERIFIED: %s (%s); the same price is used in every region", u.Note, u.ReferenceRegion),
			Sizes:        map[string]size{},
			PricePerHour: map[string]map[string]float64{},
		}
		prices := map[string]float64{}
		for name, s := range u.Sizes {
			pr.Sizes[name] = s.size
			prices[name] = s.PricePerHour
		}
		for r := range providers[p] {
			pr.PricePerHour[r] = prices
		}
		out[p] = pr
	}
	for p := range providers {
		pr, ok := out[p]
		if !ok {
			return fmt.Errorf("provider %s has regions but no instance sizes", p)
		}
		pr.Order, pr.OrderIn = orders(pr.Sizes, pr.PricePerHour)
		out[p] = pr
	}
	return writeJSON(instancesPath, out)
}

// orders ranks a provider's sizes in every region, cheapest first (then
// fewer mCPU, less memory, name), so that the policies pick a VM's size as
// the first one in the rank that fits, once per provider, instead of
// comparing every size in every region. order is the rank most regions
// share; orderIn holds the rank of each region whose prices rank the sizes
// otherwise.
func orders(sizes map[string]size, prices map[string]map[string]float64) ([]string, map[string][]string) {
	rank := func(region string) []string {
		names := make([]string, 0, len(sizes))
		for n := range sizes {
			names = append(names, n)
		}
		p := prices[region]
		sort.Slice(names, func(i, j int) bool {
			a, b := names[i], names[j]
			switch {
			case p[a] != p[b]:
				return p[a] < p[b]
			case sizes[a].CPUMilli != sizes[b].CPUMilli:
				return sizes[a].CPUMilli < sizes[b].CPUMilli
			case sizes[a].MemoryMiB != sizes[b].MemoryMiB:
				return sizes[a].MemoryMiB < sizes[b].MemoryMiB
			}
			return a < b
		})
		return names
	}
	regions := make([]string, 0, len(prices))
	for r := range prices {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	ranks := map[string][]string{}
	count := map[string]int{}
	for _, r := range regions {
		ranks[r] = rank(r)
		count[strings.Join(ranks[r], ",")]++
	}
	var common string
	for _, r := range regions {
		if k := strings.Join(ranks[r], ","); count[k] > count[common] {
			common = k
		}
	}
	order := strings.Split(common, ",")
	orderIn := map[string][]string{}
	for _, r := range regions {
		if strings.Join(ranks[r], ",") != common {
			orderIn[r] = ranks[r]
		}
	}
	return order, orderIn
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("failed to read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("failed to parse %s: %w", path, err)
	}
	return nil
}
