package testbed

import (
	"errors"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ManagementCluster is the name of the management cluster of every
// testbed; no member may take it.
const ManagementCluster = "management"

// maxMembers and maxNodes bound a profile so that node addresses
// (172.16.<member>.<node>) and pod CIDRs (10.<member>.0.1/16) stay
// distinct.
const (
	maxMembers = 254
	maxNodes   = 254
)

// maxLatencyMs bounds a round-trip time: a minute is beyond any network,
// and a much larger number overflows the time.Duration the Cluster's RTT
// is written as.
const maxLatencyMs = 60_000

// MaxClusterNameLength is the longest name a member may have: it keeps
// the names of its nodes ("<cluster>-worker-<n>") and its kubeconfig
// context readable and within label limits.
const MaxClusterNameLength = 40

// Validate reports every problem of the profile at once, each naming the
// field, the value and what would be valid.
func (p *Profile) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if p.Name == "" {
		add("name: must not be empty")
	}
	if len(p.Clusters) > maxMembers {
		add("clusters: %d members, at most %d are supported", len(p.Clusters), maxMembers)
	}
	seen := map[string]bool{}
	for i, c := range p.Clusters {
		f := fmt.Sprintf("clusters[%d]", i)
		switch {
		case len(validation.IsDNS1123Label(c.Name)) > 0:
			add("%s.name: %q is not a valid cluster name: use lower-case letters, digits and '-', starting and ending with a letter or digit", f, c.Name)
		case len(c.Name) > MaxClusterNameLength:
			add("%s.name: %q is longer than %d characters", f, c.Name, MaxClusterNameLength)
		case c.Name == ManagementCluster:
			add("%s.name: %q is the management cluster's name; choose another", f, c.Name)
		case seen[c.Name]:
			add("%s.name: %q is used twice", f, c.Name)
		}
		seen[c.Name] = true
		for _, kv := range [][2]string{{"region", c.Region}, {"zone", c.Zone}} {
			if kv[1] != "" && len(validation.IsDNS1123Label(kv[1])) > 0 {
				add("%s.%s: %q must be lower-case letters, digits and '-'", f, kv[0], kv[1])
			}
		}
		if len(c.Nodes) == 0 {
			add("%s.nodes: a member needs at least one node pool", f)
		}
		if n := c.NodeCount(); n > maxNodes {
			add("%s.nodes: %d nodes, at most %d are supported", f, n, maxNodes)
		}
		for j, pool := range c.Nodes {
			pf := fmt.Sprintf("%s.nodes[%d]", f, j)
			switch {
			case pool.Count < 1:
				add("%s.count: %d must be at least 1", pf, pool.Count)
			case pool.Count > maxNodes:
				// Checked per pool too: the sum of huge counts
				// overflows past the member's check.
				add("%s.count: %d nodes, at most %d are supported", pf, pool.Count, maxNodes)
			}
			if pool.CPU.Sign() <= 0 {
				add("%s.cpu: %q must be positive, for example \"4\" or \"500m\"", pf, pool.CPU.String())
			}
			if pool.Memory.Sign() <= 0 {
				add("%s.memory: %q must be positive, for example \"16Gi\"", pf, pool.Memory.String())
			}
			if pool.Pods < 0 {
				add("%s.pods: %d must not be negative (0 means %d)", pf, pool.Pods, DefaultPodsPerNode)
			}
		}
	}

	if p.Sharing != nil {
		errs = append(errs, p.Sharing.validate(p)...)
	}
	if cm := p.ControllerManager; cm != nil {
		if cm.KubeAPIQPS < 1 {
			add("controllerManager.kubeAPIQPS: %d must be at least 1 (upstream's default is 20, the testbed's %d)", cm.KubeAPIQPS, DefaultKubeAPIQPS)
		}
		if cm.KubeAPIBurst < cm.KubeAPIQPS {
			add("controllerManager.kubeAPIBurst: %d must be at least kubeAPIQPS (%d)", cm.KubeAPIBurst, cm.KubeAPIQPS)
		}
	}
	if len(p.LatencyMs) > 0 {
		for _, a := range sortedKeys(p.LatencyMs) {
			if !seen[a] {
				add("latencyMs.%s: %q is not a cluster of the profile", a, a)
			}
			for _, b := range sortedKeys(p.LatencyMs[a]) {
				switch ms := p.LatencyMs[a][b]; {
				case !seen[b]:
					add("latencyMs.%s.%s: %q is not a cluster of the profile", a, b, b)
				case a == b:
					add("latencyMs.%s.%s: a cluster has no latency to itself", a, b)
				case ms <= 0:
					add("latencyMs.%s.%s: %g must be a positive number of milliseconds", a, b, ms)
				case ms > maxLatencyMs:
					add("latencyMs.%s.%s: %g must be at most %d milliseconds", a, b, ms, maxLatencyMs)
				}
			}
		}
		for i, a := range p.Clusters {
			for _, b := range p.Clusters[i+1:] {
				if _, ok := p.Latency(a.Name, b.Name); !ok {
					add("latencyMs: no latency between %q and %q: give every pair, in either direction", a.Name, b.Name)
				}
			}
		}
	}
	return errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
