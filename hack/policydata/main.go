//go:build ignore

// Command policydata regenerates the inter-region latency document of the
// default policy bundle (policies/meridian/clouds/latency/data.json).
//
// Azure-to-Azure round-trip times are Microsoft's published P95 figures
// (azure-latency-p95.json, transcribed from the azure-docs table). No
// published matrix with a compatible licence covers GCP and AWS, so every
// other pair is estimated from the great-circle distance between the regions'
// locations with a line fitted, by least squares, to the published Azure
// pairs: rtt = intercept + slope * km. The fit and the count of pairs it used
// are written beside the matrix so that a reader can tell the two apart.
//
// Run it from the repository root:
//
//	go run hack/policydata/main.go
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
)

const (
	regionsPath = "policies/meridian/clouds/regions/data.json"
	azurePath   = "hack/policydata/azure-latency-p95.json"
	outPath     = "policies/meridian/clouds/latency/data.json"
)

type region struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

func main() {
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
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(outPath, append(b, '\n'), 0o644)
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
