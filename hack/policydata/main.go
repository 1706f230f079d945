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
// Prices. Every provider's per-region on-demand Linux prices come from a
// pinned, Apache-2.0 dataset, extracted (values unchanged, only the shipped
// sizes and regions) into a JSON file that records the repository, commit,
// path and licence it was read from:
//
//   - GCP: gcp-prices.json, from Cyclenerd/google-cloud-pricing-cost-calculator's
//     pricing.yml (sizes and prices).
//   - Azure: azure-prices.json, from Azure/karpenter-provider-azure's
//     pkg/providers/pricing/zz_generated.pricing.go (prices; the sizes' vCPUs
//     and memory are azureSizes below).
//   - AWS: aws-prices.json, from aws/karpenter-provider-aws's
//     pkg/providers/pricing/zz_generated.pricing_aws.go (prices; the sizes are
//     awsSizes below). That file prices us-east-1 only.
//
// A provider's prices are "verified" when the extract prices every one of
// its shipped regions. A region the source does not price takes the price of
// the provider's fallbackRegion (as Karpenter itself does with its static
// prices), and the provider is then marked "verified": false with a source
// that names those regions; a provider with unpriced regions and no fallback
// region is an error. Every source prices in US dollars, which
// instances/data.json says per provider ("currency"). Prices are read,
// compared and written as the decimals the sources write (the price type),
// never through a float64.
//
// With -gcp-pricing, -azure-pricing or -aws-pricing an extract is first
// rebuilt from a copy of the source file at the commit given with
// -gcp-commit, -azure-commit or -aws-commit (required: the extract records
// it). The Karpenter files are Go source; only the string keys and number
// literals of their price maps are read (go/parser), no code is used:
//
//	git clone https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator /tmp/gcp-pricing
//	git -C /tmp/gcp-pricing checkout fd66b26ff84fee5cdd94f341ea89206e76c06b99
//	go run hack/policydata/main.go -gcp-pricing /tmp/gcp-pricing/pricing.yml -gcp-commit fd66b26ff84fee5cdd94f341ea89206e76c06b99
//
//	git clone https://github.com/Azure/karpenter-provider-azure /tmp/kp-azure
//	git -C /tmp/kp-azure checkout 352646f599290c3a6d2f9710fb535a7b288f88ed
//	go run hack/policydata/main.go -azure-pricing /tmp/kp-azure/pkg/providers/pricing/zz_generated.pricing.go -azure-commit 352646f599290c3a6d2f9710fb535a7b288f88ed
//
//	git clone https://github.com/aws/karpenter-provider-aws /tmp/kp-aws
//	git -C /tmp/kp-aws checkout 1d927085dd81a9df9301e613f371dac5b4d16bfe
//	go run hack/policydata/main.go -aws-pricing /tmp/kp-aws/pkg/providers/pricing/zz_generated.pricing_aws.go -aws-commit 1d927085dd81a9df9301e613f371dac5b4d16bfe
//
// Run it from the repository root:
//
//	go run hack/policydata/main.go
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/meridian-dev/meridian/internal/money"
)

const (
	regionsPath = "policies/meridian/clouds/regions/data.json"
	azurePath   = "hack/policydata/azure-latency-p95.json"
	outPath     = "policies/meridian/clouds/latency/data.json"

	gcpPricesPath   = "hack/policydata/gcp-prices.json"
	azurePricesPath = "hack/policydata/azure-prices.json"
	awsPricesPath   = "hack/policydata/aws-prices.json"
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

// azureSizes are the Azure sizes shipped, with their vCPUs and memory as
// Microsoft documents them (the Fsv2, Dsv5 and Esv5 series pages): the
// Karpenter price file has prices only.
var azureSizes = map[string]size{
	"Standard_F2s_v2": {2000, 4096}, "Standard_F4s_v2": {4000, 8192}, "Standard_F8s_v2": {8000, 16384}, "Standard_F16s_v2": {16000, 32768},
	"Standard_D2s_v5": {2000, 8192}, "Standard_D4s_v5": {4000, 16384}, "Standard_D8s_v5": {8000, 32768}, "Standard_D16s_v5": {16000, 65536}, "Standard_D32s_v5": {32000, 131072},
	"Standard_E2s_v5": {2000, 16384}, "Standard_E4s_v5": {4000, 32768}, "Standard_E8s_v5": {8000, 65536}, "Standard_E16s_v5": {16000, 131072},
}

// awsSizes are the AWS instance types shipped, with their vCPUs and memory
// as AWS documents them (the C7i, M7i and R7i pages): the Karpenter price
// file has prices only.
var awsSizes = map[string]size{
	"c7i.large": {2000, 4096}, "c7i.xlarge": {4000, 8192}, "c7i.2xlarge": {8000, 16384}, "c7i.4xlarge": {16000, 32768},
	"m7i.large": {2000, 8192}, "m7i.xlarge": {4000, 16384}, "m7i.2xlarge": {8000, 32768}, "m7i.4xlarge": {16000, 65536}, "m7i.8xlarge": {32000, 131072},
	"r7i.large": {2000, 16384}, "r7i.xlarge": {4000, 32768}, "r7i.2xlarge": {8000, 65536}, "r7i.4xlarge": {16000, 131072},
}

// karpenterSource is a Karpenter provider's generated file of static
// on-demand prices, and where it comes from.
type karpenterSource struct {
	provider   string
	out        string // the extract written
	repository string
	path       string
	license    string
	copyright  string
	sizes      map[string]size
}

var (
	azureSource = karpenterSource{
		provider:   "azure",
		out:        azurePricesPath,
		repository: "github.com/Azure/karpenter-provider-azure",
		path:       "pkg/providers/pricing/zz_generated.pricing.go",
		license:    "Apache-2.0",
		copyright:  "Portions Copyright (c) Microsoft Corporation.",
		sizes:      azureSizes,
	}
	awsSource = karpenterSource{
		provider:   "aws",
		out:        awsPricesPath,
		repository: "github.com/aws/karpenter-provider-aws",
		path:       "pkg/providers/pricing/zz_generated.pricing_aws.go",
		license:    "Apache-2.0",
		copyright:  "Karpenter, Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved. (NOTICE)",
		sizes:      awsSizes,
	}
)

// fallbackRegion is, per provider, the region whose sourced prices stand in
// for a shipped region the source does not price. Such prices are not
// verified for that region, so the provider is marked "verified": false.
// aws-prices.json prices us-east-1 only: Karpenter's generated file has no
// other commercial region, and Karpenter itself falls back to us-east-1's
// static prices for every other region until it reads the Price List API.
var fallbackRegion = map[string]string{"aws": "us-east-1"}

type region struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

func main() {
	gcpPricing := flag.String("gcp-pricing", "", "rebuild "+gcpPricesPath+" from this copy of "+gcpPricingRepo+"'s "+gcpPricingFile)
	gcpCommit := flag.String("gcp-commit", "", "the commit of "+gcpPricingRepo+" that -gcp-pricing was checked out at (recorded in the extract)")
	azurePricing := flag.String("azure-pricing", "", "rebuild "+azurePricesPath+" from this copy of "+azureSource.repository+"'s "+azureSource.path)
	azureCommit := flag.String("azure-commit", "", "the commit of "+azureSource.repository+" that -azure-pricing was checked out at (recorded in the extract)")
	awsPricing := flag.String("aws-pricing", "", "rebuild "+awsPricesPath+" from this copy of "+awsSource.repository+"'s "+awsSource.path)
	awsCommit := flag.String("aws-commit", "", "the commit of "+awsSource.repository+" that -aws-pricing was checked out at (recorded in the extract)")
	flag.Parse()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, x := range []struct {
		file, commit, flag string
		extract            func(file, commit string) error
	}{
		{*gcpPricing, *gcpCommit, "gcp", extractGCP},
		{*azurePricing, *azureCommit, "azure", azureSource.extract},
		{*awsPricing, *awsCommit, "aws", awsSource.extract},
	} {
		if x.file == "" {
			continue
		}
		if x.commit == "" {
			fmt.Fprintf(os.Stderr, "-%s-commit is required with -%s-pricing: the extract records where its prices came from\n", x.flag, x.flag)
			os.Exit(2)
		}
		if err := x.extract(x.file, x.commit); err != nil {
			fail(err)
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

// priceExtract is a price extract (gcp-prices.json, azure-prices.json,
// aws-prices.json): the shipped sizes' hourly on-demand prices in every
// shipped region the source prices, and where they came from. Sizes is set
// when the source gives the sizes too (GCP).
type priceExtract struct {
	Source struct {
		Repository string `json:"repository"`
		Commit     string `json:"commit"`
		Path       string `json:"path"`
		License    string `json:"license"`
		Generated  string `json:"generated"`
		Copyright  string `json:"copyright"`
	} `json:"source"`
	Sizes        map[string]size             `json:"sizes,omitempty"`
	PricePerHour map[string]map[string]price `json:"pricePerHour"`
	// Unpriced lists the provider's shipped regions that the source has no
	// prices for.
	Unpriced []string `json:"unpriced,omitempty"`
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
					Hour price `yaml:"hour"`
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
	var out priceExtract
	out.Source.Repository = gcpPricingRepo
	out.Source.Commit = commit
	out.Source.Path = gcpPricingFile
	out.Source.License = gcpPricingLicen
	out.Source.Generated = doc.About.Generated
	out.Source.Copyright = strings.TrimSpace(strings.SplitN(strings.TrimSpace(doc.About.Copyright), "\n", 2)[0])
	out.Sizes = map[string]size{}
	out.PricePerHour = map[string]map[string]price{}
	for _, name := range gcpSizes {
		it, ok := doc.Compute.Instance[name]
		if !ok {
			return fmt.Errorf("%s has no machine type %s", path, name)
		}
		out.Sizes[name] = size{CPUMilli: int64(math.Round(it.CPU * 1000)), MemoryMiB: int64(math.Round(it.RAM * 1024))}
		for r := range providers["gcp"] {
			c, ok := it.Cost[r]
			if !ok || !c.Hour.positive() {
				return fmt.Errorf("%s has no hourly price of %s in %s", path, name, r)
			}
			if out.PricePerHour[r] == nil {
				out.PricePerHour[r] = map[string]price{}
			}
			out.PricePerHour[r][name] = c.Hour
		}
	}
	return writeJSON(gcpPricesPath, out)
}

// generatedAt finds the "// generated at <time>" line of a Karpenter file.
var generatedAt = regexp.MustCompile(`(?m)^// generated at (\S+)`)

// extract rebuilds the source's price extract from a copy of its generated
// Go file. Only data is read: every composite literal that maps string keys
// to number literals is a region's price list, keyed by the region named
// either by the key it is the value of ("us-east-1": {...}) or by the index
// it is assigned to (initialOnDemandPrices["eastus"] = ...).
func (k karpenterSource) extract(path, commit string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("failed to read %s: %w", path, err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments)
	if err != nil {
		return fmt.Errorf("failed to parse %s: %w", path, err)
	}
	found := map[string]map[string]price{}
	var bad error
	add := func(region ast.Expr, lit ast.Expr) {
		name, ok := stringLit(region)
		cl, isLit := lit.(*ast.CompositeLit)
		if !ok || !isLit {
			return
		}
		prices, ok := priceList(cl)
		if !ok {
			return
		}
		if _, dup := found[name]; dup && bad == nil {
			bad = fmt.Errorf("%s prices region %s twice", path, name)
		}
		found[name] = prices
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			add(n.Key, n.Value)
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				if ix, ok := n.Lhs[0].(*ast.IndexExpr); ok {
					add(ix.Index, n.Rhs[0])
				}
			}
		}
		return true
	})
	if bad != nil {
		return bad
	}
	if len(found) == 0 {
		return fmt.Errorf("%s has no price list of a region", path)
	}
	var providers map[string]map[string]region
	if err := readJSON(regionsPath, &providers); err != nil {
		return err
	}
	var out priceExtract
	out.Source.Repository = k.repository
	out.Source.Commit = commit
	out.Source.Path = k.path
	out.Source.License = k.license
	out.Source.Copyright = k.copyright
	if m := generatedAt.FindSubmatch(src); m != nil {
		out.Source.Generated = string(m[1])
	}
	out.PricePerHour = map[string]map[string]price{}
	for r := range providers[k.provider] {
		prices, ok := found[r]
		if !ok {
			out.Unpriced = append(out.Unpriced, r)
			continue
		}
		out.PricePerHour[r] = map[string]price{}
		for name := range k.sizes {
			p, ok := prices[name]
			if !ok || !p.positive() {
				return fmt.Errorf("%s prices region %s but has no hourly price of %s there", path, r, name)
			}
			out.PricePerHour[r][name] = p
		}
	}
	sort.Strings(out.Unpriced)
	return writeJSON(k.out, out)
}

// stringLit is the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// priceList reads a composite literal whose every element is a string key
// with a number literal value.
func priceList(cl *ast.CompositeLit) (map[string]price, bool) {
	if len(cl.Elts) == 0 {
		return nil, false
	}
	out := make(map[string]price, len(cl.Elts))
	for _, e := range cl.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return nil, false
		}
		k, ok := stringLit(kv.Key)
		b, isNum := kv.Value.(*ast.BasicLit)
		if !ok || !isNum || (b.Kind != token.FLOAT && b.Kind != token.INT) {
			return nil, false
		}
		v, err := parsePrice(b.Value)
		if err != nil {
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

// instances writes the instances document: per provider its sizes, its
// price of each in each of its regions, and whether those prices come from
// a recorded source.
func instances() error {
	var providers map[string]map[string]region
	if err := readJSON(regionsPath, &providers); err != nil {
		return err
	}
	type provider struct {
		Verified bool   `json:"verified"`
		Source   string `json:"source"`
		// Currency of every price: the three sources price in US dollars.
		Currency     string                      `json:"currency"`
		Sizes        map[string]size             `json:"sizes"`
		PricePerHour map[string]map[string]price `json:"pricePerHour"`
		Order        []string                    `json:"order"`
		OrderIn      map[string][]string         `json:"orderIn,omitempty"`
	}
	out := map[string]provider{}
	for _, x := range []struct {
		provider, path, rebuild string
		sizes                   map[string]size
	}{
		{"gcp", gcpPricesPath, "-gcp-pricing", nil},
		{"azure", azurePricesPath, "-azure-pricing", azureSizes},
		{"aws", awsPricesPath, "-aws-pricing", awsSizes},
	} {
		var e priceExtract
		if err := readJSON(x.path, &e); err != nil {
			return err
		}
		sizes := x.sizes
		if sizes == nil {
			sizes = e.Sizes
		}
		pr := provider{
			Verified:     true,
			Currency:     "USD",
			Sizes:        sizes,
			PricePerHour: map[string]map[string]price{},
		}
		var unpriced []string
		for r := range providers[x.provider] {
			prices, ok := e.PricePerHour[r]
			if !ok {
				unpriced = append(unpriced, r)
				continue
			}
			for n := range sizes {
				if !prices[n].positive() {
					return fmt.Errorf("%s has no price of %s in %s region %s; rebuild it with %s", x.path, n, x.provider, r, x.rebuild)
				}
			}
			pr.PricePerHour[r] = prices
		}
		sort.Strings(unpriced)
		src := fmt.Sprintf("%s %s at commit %s (%s, %s; generated %s): on-demand hourly price in each region",
			e.Source.Repository, e.Source.Path, e.Source.Commit, e.Source.License, e.Source.Copyright, e.Source.Generated)
		if len(unpriced) > 0 {
			ref, ok := fallbackRegion[x.provider]
			if _, priced := e.PricePerHour[ref]; !ok || !priced {
				return fmt.Errorf("%s has no prices for %s regions %s and the provider has no priced fallback region; rebuild it with %s", x.path, x.provider, strings.Join(unpriced, ", "), x.rebuild)
			}
			for _, r := range unpriced {
				pr.PricePerHour[r] = e.PricePerHour[ref]
			}
			pr.Verified = false
			src = fmt.Sprintf("UNVERIFIED in %s: the source has no prices there, so %s's are used. %s", strings.Join(unpriced, ", "), ref, strings.Replace(src, "in each region", "in "+ref, 1))
		}
		pr.Source = src
		pr.Order, pr.OrderIn = orders(pr.Sizes, pr.PricePerHour)
		out[x.provider] = pr
	}
	for p := range providers {
		if _, ok := out[p]; !ok {
			return fmt.Errorf("provider %s has regions but no instance sizes", p)
		}
	}
	return writeJSON(instancesPath, out)
}

// orders ranks a provider's sizes in every region, cheapest first (then
// fewer mCPU, less memory, name), so that the policies pick a VM's size as
// the first one in the rank that fits, once per provider, instead of
// comparing every size in every region. order is the rank most regions
// share; orderIn holds the rank of each region whose prices rank the sizes
// otherwise.
func orders(sizes map[string]size, prices map[string]map[string]price) ([]string, map[string][]string) {
	rank := func(region string) []string {
		names := make([]string, 0, len(sizes))
		for n := range sizes {
			names = append(names, n)
		}
		p := prices[region]
		sort.Slice(names, func(i, j int) bool {
			a, b := names[i], names[j]
			switch {
			case p[a].cmp(p[b]) != 0:
				return p[a].cmp(p[b]) < 0
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

// currency is what every source prices in.
const currency = "USD"

// price is an hourly price as the decimal its source writes, read and
// compared exactly (internal/money), never through a float64; JSON writes
// it as the number it is.
type price string

// parsePrice reads a decimal such as "0.0960"; trailing zeros of the
// fraction are dropped, so one price is written one way.
func parsePrice(s string) (price, error) {
	s = strings.TrimSpace(s)
	if _, err := money.Parse(s, currency); err != nil {
		return "", err
	}
	if strings.Contains(s, ".") && !strings.ContainsAny(s, "eE") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return price(s), nil
}

// money is p in US dollars.
func (p price) money() money.Money {
	m, err := money.Parse(string(p), currency)
	if err != nil {
		return money.Money{}
	}
	return m
}

// positive reports whether p is a price above zero.
func (p price) positive() bool { return p != "" && p.money().Sign() > 0 }

// cmp compares p with q: -1, 0 or 1.
func (p price) cmp(q price) int {
	c, _ := p.money().Cmp(q.money())
	return c
}

// MarshalJSON writes p as a JSON number.
func (p price) MarshalJSON() ([]byte, error) {
	if p == "" {
		return []byte("0"), nil
	}
	return []byte(p), nil
}

// UnmarshalJSON reads a JSON number exactly.
func (p *price) UnmarshalJSON(b []byte) error {
	v, err := parsePrice(string(b))
	if err != nil {
		return fmt.Errorf("price %s: %w", b, err)
	}
	*p = v
	return nil
}

// UnmarshalYAML reads a YAML number exactly.
func (p *price) UnmarshalYAML(n *yaml.Node) error {
	v, err := parsePrice(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: price %q: %w", n.Line, n.Value, err)
	}
	*p = v
	return nil
}
