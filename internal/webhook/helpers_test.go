package webhook

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/policy"
)

// tablePolicies is a small VMPolicies over a fixed region table, for the
// tests that run before the policy engine's constructor exists.
type tablePolicies struct{}

type tableRegion struct {
	provider, region, zone, size string
	price                        float64
	eu                           bool
	// rtt is the round-trip time from westeurope.
	rtt float64
}

var testRegions = []tableRegion{
	{"aws", "eu-west-1", "IE", "m6i.large", 0.107, true, 18},
	{"aws", "us-east-1", "US-MIDA-PJM", "m6i.large", 0.096, false, 80},
	{"azure", "westeurope", "NL", "Standard_D2s_v5", 0.115, true, 1},
	{"azure", "eastus", "US-MIDA-PJM", "Standard_D2s_v5", 0.096, false, 82},
	{"gcp", "europe-west4", "NL", "e2-standard-2", 0.073, true, 5},
	{"gcp", "us-central1", "US-MIDW-MISO", "e2-standard-2", 0.067, false, 100},
}

func (tablePolicies) VM(_ context.Context, in policy.VMInput) (policy.VMDecision, error) {
	left := slices.Clone(testRegions)
	dec := policy.VMDecision{Revision: "table", DecisionID: "table-" + in.Name}
	step := func(name string, keep func(r tableRegion) (bool, string)) {
		var kept []tableRegion
		var names []string
		for _, r := range left {
			if ok, why := keep(r); ok {
				kept = append(kept, r)
				names = append(names, r.provider+"/"+r.region)
			} else {
				dec.Removed = append(dec.Removed, policy.VMRemoval{Provider: r.provider, Region: r.region, Policy: name, Reason: why})
			}
		}
		left = kept
		dec.Steps = append(dec.Steps, policy.VMStep{Policy: name, Left: names})
	}
	step("providers", func(r tableRegion) (bool, string) {
		if in.Provider != "" && r.provider != in.Provider {
			return false, "the VM is pinned to provider " + in.Provider
		}
		if len(in.Providers) > 0 && !slices.Contains(in.Providers, r.provider) {
			return false, fmt.Sprintf("provider %s is not among the VM's providers %v", r.provider, in.Providers)
		}
		return true, ""
	})
	step("pin", func(r tableRegion) (bool, string) {
		return in.Region == "" || r.region == in.Region, "the VM is pinned to region " + in.Region
	})
	step("residency", func(r tableRegion) (bool, string) {
		return in.Residency == "" || r.eu, "region is outside " + in.Residency
	})
	step("latency", func(r tableRegion) (bool, string) {
		return in.MaxLatencyMs <= 0 || r.rtt <= in.MaxLatencyMs, fmt.Sprintf("%.0f ms from %s, above %.0f ms", r.rtt, in.OriginRegion, in.MaxLatencyMs)
	})
	for _, r := range left {
		dec.Candidates = append(dec.Candidates, carbon.Candidate{Provider: r.provider, Region: r.region, Zone: r.zone, InstanceType: r.size, PricePerHour: r.price, LatencyMs: r.rtt})
	}
	return dec, nil
}

// greenest is a carbon.Scheduler over fixed hourly intensities per zone: it
// chooses the zone and whole hour with the lowest intensity whose run ends
// by the deadline. It stands in for the carbon issue's scheduler.
type greenest struct {
	// intensity per zone, per hour from the hour of the request's now.
	intensity map[string][]float64
}

func (g greenest) Schedule(req carbon.Request) (carbon.Plan, error) {
	if len(req.Candidates) == 0 {
		return carbon.Plan{}, carbon.ErrNoCandidates
	}
	type option struct {
		c     carbon.Candidate
		start time.Time
		g     float64
	}
	var opts []option
	base := req.Now.Truncate(time.Hour)
	for _, c := range req.Candidates {
		for h, v := range g.intensity[c.Zone] {
			start := base.Add(time.Duration(h) * time.Hour)
			if start.Before(req.Earliest()) {
				start = req.Earliest()
			}
			if !req.Deadline.IsZero() && start.Add(req.Duration).After(req.Deadline) {
				continue
			}
			opts = append(opts, option{c, start, v * req.Duration.Hours()})
		}
	}
	if len(opts) == 0 {
		return carbon.Plan{}, fmt.Errorf("%w: no hour of the forecast fits", carbon.ErrDeadline)
	}
	sort.SliceStable(opts, func(a, b int) bool { return opts[a].g < opts[b].g })
	o := opts[0]
	return carbon.Plan{Candidate: o.c, Start: o.start, End: o.start.Add(req.Duration), ExpectedGrams: o.g, BaselineGrams: 500,
		Source: "test", Reason: fmt.Sprintf("%s/%s at %s has the lowest intensity", o.c.Provider, o.c.Region, o.start.Format(time.RFC3339))}, nil
}

func ptr[T any](v T) *T { return &v }

// testVM is a VM of 2 CPUs and 4 GiB for 2 hours in namespace default.
func testVM(name string, mutate ...func(*computev1alpha1.CloudVM)) *computev1alpha1.CloudVM {
	vm := &computev1alpha1.CloudVM{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: computev1alpha1.CloudVMSpec{
			CPU:      resource.MustParse("2"),
			Memory:   resource.MustParse("4Gi"),
			Duration: metav1.Duration{Duration: 2 * time.Hour},
			Image:    "ubuntu-24.04",
		},
	}
	for _, m := range mutate {
		m(vm)
	}
	return vm
}

// testPolicies returns the VM policies the tests decide with.
func testPolicies(t testing.TB) policy.VMPolicies {
	t.Helper()
	return tablePolicies{}
}

// testDecisionWithManyRemovals is a decision whose one policy "p" removed
// n regions, each for the same reason.
func testDecisionWithManyRemovals(n int) policy.VMDecision {
	dec := policy.VMDecision{Steps: []policy.VMStep{{Policy: "p"}}}
	for i := range n {
		dec.Removed = append(dec.Removed, policy.VMRemoval{Provider: "aws", Region: fmt.Sprintf("region-%d", i), Policy: "p", Reason: "removed for the test"})
	}
	return dec
}
