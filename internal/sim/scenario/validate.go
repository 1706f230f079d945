package scenario

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/autoscale"
	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/sim/workload"
)

// Placements are the valid values of Policy.Placement: the KubeFed
// baseline, then every placement policy the framework knows
// (placement.Policies, the one list the API's enum and the profiles are
// checked against).
var Placements = func() []string {
	out := []string{PlacementPropagate}
	for _, p := range placement.Policies() {
		out = append(out, string(p))
	}
	return out
}()

type validator struct {
	problems []problem
	clusters map[string]bool // member clusters and the cloud
}

func (v *validator) add(path string, format string, args ...any) {
	v.problems = append(v.problems, problem{path: path, err: fmt.Errorf(format, args...)})
}

func (v *validator) positive(path string, q resource.Quantity) {
	if q.Sign() <= 0 {
		v.add(path, "%q: must be positive", q.String())
	}
}

func (v *validator) known(path, name string) {
	if !v.clusters[name] {
		v.add(path, "%q is not a cluster of the scenario (clusters: %s)", name, strings.Join(sortedKeys(v.clusters), ", "))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// validate checks s after decoding and before defaults.
func validate(s *Scenario) []problem {
	v := &validator{clusters: map[string]bool{}}
	if s.Name == "" {
		v.add("name", "must not be empty")
	}
	c := s.Controllers
	for _, f := range []struct {
		name string
		d    time.Duration
	}{
		{"autoscalerPeriod", c.AutoscalerPeriod}, {"provisionerPeriod", c.ProvisionerPeriod}, {"reschedulerPeriod", c.ReschedulerPeriod},
		{"placementRetry", c.PlacementRetry}, {"pendingGrace", c.PendingGrace}, {"trafficInterval", c.TrafficInterval},
		{"failoverGrace", c.FailoverGrace},
	} {
		if f.d < 0 {
			v.add("controllers."+f.name, "%v: must not be negative (zero means the default)", f.d)
		}
	}
	if s.Duration <= 0 {
		v.add("duration", "must be positive")
	}
	if s.SampleInterval > s.Duration {
		v.add("sampleInterval", "%v: must not exceed the duration (%v)", s.SampleInterval, s.Duration)
	}
	if len(s.Clusters) == 0 {
		v.add("clusters", "at least one cluster is needed")
	}
	for i, c := range s.Clusters {
		p := fmt.Sprintf("clusters[%d]", i)
		switch {
		case c.Name == "":
			v.add(p+".name", "must not be empty")
		case v.clusters[c.Name]:
			v.add(p+".name", "%q: cluster names must be unique", c.Name)
		}
		v.clusters[c.Name] = true
		if len(c.Nodes) == 0 {
			v.add(p+".nodes", "at least one node pool is needed")
		}
		for j, n := range c.Nodes {
			np := fmt.Sprintf("%s.nodes[%d]", p, j)
			if n.Count < 1 {
				v.add(np+".count", "%d: must be at least 1", n.Count)
			}
			v.positive(np+".cpu", n.CPU)
			v.positive(np+".memory", n.Memory)
			if n.Pods < 0 {
				v.add(np+".pods", "%d: must not be negative", n.Pods)
			}
		}
	}
	v.cloud(s.Cloud)
	v.latency(s.LatencyMs)
	v.workload(s.Workload)
	v.policies(s)
	v.outages(s)
	return v.problems
}

// outages checks that each outage names a member cluster and lies within
// the run, and that a member's outages do not overlap.
func (v *validator) outages(s *Scenario) {
	members := map[string]bool{}
	for _, c := range s.Clusters {
		members[c.Name] = true
	}
	if s.Cloud != nil {
		members[s.Cloud.Name] = true
	}
	for i, o := range s.Outages {
		p := fmt.Sprintf("outages[%d]", i)
		if !members[o.Cluster] {
			v.add(p+".cluster", "%q is not a cluster of the scenario (clusters and the cloud: %s)", o.Cluster, strings.Join(sortedKeys(members), ", "))
		}
		if o.At < 0 || o.At >= s.Duration {
			v.add(p+".at", "%v: must be within the run, from 0 to before its duration %v", o.At, s.Duration)
		}
		if o.For <= 0 {
			v.add(p+".for", "%v: must be positive", o.For)
		}
		for j, other := range s.Outages[:i] {
			if other.Cluster == o.Cluster && o.At < other.At+other.For && other.At < o.At+o.For {
				v.add(p, "overlaps outages[%d] of %q: give one outage per stretch of time", j, o.Cluster)
			}
		}
	}
}

func (v *validator) cloud(c *Cloud) {
	if c == nil {
		return
	}
	if c.Name == "" {
		v.add("cloud.name", "must not be empty")
	} else if v.clusters[c.Name] {
		v.add("cloud.name", "%q: already the name of a member cluster", c.Name)
	}
	v.clusters[c.Name] = true
	if len(c.Flavors) == 0 {
		v.add("cloud.flavors", "at least one flavor is needed")
	}
	var currency, currencyAt string
	for i, f := range c.Flavors {
		p := fmt.Sprintf("cloud.flavors[%d]", i)
		if f.Name == "" {
			v.add(p+".name", "must not be empty")
		}
		v.positive(p+".cpu", f.CPU)
		v.positive(p+".memory", f.Memory)
		if m := f.PricePerHour; m != nil {
			if m.Amount.Sign() < 0 {
				v.add(p+".pricePerHour.amount", "%q: must not be negative", m.Amount.String())
			}
			switch {
			case money.ValidCurrency(m.Currency) != nil:
				v.add(p+".pricePerHour.currency", "%q: must be an ISO 4217 code such as USD", m.Currency)
			case currency == "":
				currency, currencyAt = m.Currency, p+".pricePerHour.currency"
			case m.Currency != currency:
				v.add(p+".pricePerHour.currency", "%q: must be %s, the currency of %s: flavors are compared by price", m.Currency, currency, currencyAt)
			}
		}
	}
	if c.MinNodes < 0 {
		v.add("cloud.minNodes", "%d: must not be negative", c.MinNodes)
	}
	if c.MaxNodes != 0 && c.MaxNodes < max(c.MinNodes, 1) {
		v.add("cloud.maxNodes", "%d: must be at least minNodes (%d)", c.MaxNodes, max(c.MinNodes, 1))
	}
	if c.ScaleDownUtilization < 0 || c.ScaleDownUtilization > 1 {
		v.add("cloud.scaleDownUtilization", "%g: must be in [0, 1]", c.ScaleDownUtilization)
	}
}

func (v *validator) latency(l map[string]map[string]float64) {
	if len(l) == 0 {
		return
	}
	for _, a := range sortedKeys(l) {
		if !v.clusters[a] {
			v.known("latencyMs."+a, a)
			continue
		}
		for _, b := range sortedKeys(l[a]) {
			p := "latencyMs." + a + "." + b
			v.known(p, b)
			if ms := l[a][b]; ms < 0 {
				v.add(p, "%g: must not be negative", ms)
			}
		}
	}
	names := sortedKeys(v.clusters)
	for i, a := range names {
		for _, b := range names[i+1:] {
			_, ab := l[a][b]
			_, ba := l[b][a]
			if !ab && !ba {
				v.add("latencyMs", "no latency between %q and %q: give every pair, in either direction", a, b)
			}
		}
	}
}

func (v *validator) workload(w Workload) {
	if w.Generator == nil && w.Trace == "" && len(w.Services) == 0 {
		v.add("workload", "give a generator, a trace or services")
	}
	if w.Generator != nil && w.Trace != "" {
		v.add("workload.trace", "give a generator or a trace, not both")
	}
	if g := w.Generator; g != nil {
		p := "workload.generator"
		if g.Tasks < 1 {
			v.add(p+".tasks", "%d: must be at least 1", g.Tasks)
		}
		if g.Window <= 0 {
			v.add(p+".window", "must be positive")
		}
		dists := []struct {
			name string
			dist workload.Dist
		}{{"cpuMilli", g.CPUMilli}, {"memoryMiB", g.MemoryMiB}, {"durationMinutes", g.DurationMinutes}}
		for _, d := range dists {
			if f, err := d.dist.Validate(); err != nil {
				v.add(p+"."+d.name+"."+f, "%v", err)
			}
		}
		if g.Replicas != nil {
			if f, err := g.Replicas.Validate(); err != nil {
				v.add(p+".replicas."+f, "%v", err)
			}
		}
		for i, l := range g.Locations {
			v.known(fmt.Sprintf("%s.locations[%d].cluster", p, i), l.Cluster)
			if l.Tasks < 0 {
				v.add(fmt.Sprintf("%s.locations[%d].tasks", p, i), "%g: must not be negative", l.Tasks)
			}
		}
	}
	seen := map[string]bool{}
	for i, s := range w.Services {
		p := fmt.Sprintf("workload.services[%d]", i)
		switch {
		case s.Name == "":
			v.add(p+".name", "must not be empty")
		case seen[s.Name]:
			v.add(p+".name", "%q: service names must be unique", s.Name)
		}
		seen[s.Name] = true
		v.positive(p+".cpu", s.CPU)
		v.positive(p+".memory", s.Memory)
		if s.Replicas < 1 {
			v.add(p+".replicas", "%d: must be at least 1", s.Replicas)
		}
		if s.Stop != 0 && s.Stop <= s.Start {
			v.add(p+".stop", "%v: must be after the service's start (%v), or left out to run to the end", s.Stop, s.Start)
		}
		for j, l := range s.Locations {
			v.known(fmt.Sprintf("%s.locations[%d]", p, j), l)
		}
		if a := s.Autoscaler; a != nil {
			spec := autoscale.Spec{MinReplicas: a.MinReplicas, MaxReplicas: a.MaxReplicas, TargetUtilization: a.TargetUtilization, Tolerance: a.Tolerance, CoolDown: a.CoolDown}
			if err := spec.Validate(); err != nil {
				field, _, _ := strings.Cut(err.Error(), " ")
				v.add(p+".autoscaler."+field, "%v", err)
			}
		}
		if l := s.Load; l != nil {
			if i, err := l.Curve.Validate(); err != nil {
				v.add(fmt.Sprintf("%s.load.curve[%d]", p, i), "%v", err)
			}
			for j, h := range l.Route {
				v.known(fmt.Sprintf("%s.load.route[%d].cluster", p, j), h.Cluster)
			}
			if l.MilliCPUPerUnit <= 0 {
				v.add(p+".load.milliCPUPerUnit", "%g: must be positive", l.MilliCPUPerUnit)
			}
		}
	}
}

func (v *validator) policies(s *Scenario) {
	if len(s.Policies) == 0 {
		v.add("policies", "at least one policy is needed")
	}
	seen := map[string]bool{}
	for i, pol := range s.Policies {
		p := fmt.Sprintf("policies[%d]", i)
		switch {
		case pol.Name == "":
			v.add(p+".name", "must not be empty")
		case seen[pol.Name]:
			v.add(p+".name", "%q: policy names must be unique", pol.Name)
		}
		seen[pol.Name] = true
		switch {
		case !slices.Contains(Placements, pol.Placement):
			v.add(p+".placement", "%q: must be one of %s", pol.Placement, strings.Join(Placements, ", "))
		case pol.Placement == string(placement.PolicyCarbon):
			// Refused rather than run on no data: without intensities the
			// Carbon profile ranks every cluster alike.
			v.add(p+".placement", "%q: scenarios carry no grid zones or carbon intensities yet, so Carbon would rank every cluster alike; "+
				"use one of the other placements here, and `meridian sim carbon` to compare carbon-aware policies on recorded intensities", pol.Placement)
		}
		switch provision.Mode(pol.Provisioning) {
		case "":
		case provision.Reactive, provision.Predictive:
			if s.Cloud == nil {
				v.add(p+".provisioning", "%q needs a cloud in the scenario", pol.Provisioning)
			}
		default:
			v.add(p+".provisioning", "%q: must be empty, %s or %s", pol.Provisioning, provision.Reactive, provision.Predictive)
		}
		if pol.TargetUtilization < 0 || pol.TargetUtilization > 1 {
			v.add(p+".targetUtilization", "%g: must be in (0, 1]", pol.TargetUtilization)
		}
		if pol.NumberOfLocations < 0 {
			v.add(p+".numberOfLocations", "%d: must not be negative", pol.NumberOfLocations)
		}
	}
}
