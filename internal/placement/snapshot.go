package placement

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// ClusterInfo is a Cluster with what the framework derives from it once per
// snapshot (free resources per node, totals).
type ClusterInfo struct {
	Cluster
	// Free is, per node (indexed like Nodes), Allocatable - Requested -
	// assumed, never negative.
	Free []Resources
	// TotalAllocatable and TotalFree sum Allocatable and Free over the
	// schedulable nodes.
	TotalAllocatable Resources
	TotalFree        Resources

	// flags holds nodeCordoned and nodeTainted per node, anyFlag whether any
	// node has one, and maxFree the largest free amount of each resource over
	// all nodes; all are derived from Nodes and Free by refresh.
	flags   []uint8
	anyFlag bool
	maxFree Resources
	// latency is the snapshot's matrix, for LatencyFrom.
	latency Latency
	// shared says Free and flags are shared with other snapshots (see
	// Snapshots) and must be copied before they change (own).
	shared bool
	// generation is the nodes' generation Free was derived from; zero when
	// unknown.
	generation uint64
}

// LatencyFrom returns the round-trip time between the cluster and origin
// (see Latency.Between), so that a filter, which sees one cluster, can
// bound it.
func (c *ClusterInfo) LatencyFrom(origin string) (time.Duration, bool) {
	return c.latency.Between(c.Name, origin)
}

// CarbonIntensity reads grid zones' hourly carbon intensity in grams of
// CO2-equivalent per kWh, now and forecast; *carbon.Intensities is one. It
// must be safe for concurrent reads.
type CarbonIntensity interface {
	// GramsPerKWh returns the intensity of the zone's hour that holds t,
	// and false when it is not known.
	GramsPerKWh(zone string, t time.Time) (float64, bool)
}

// Snapshot is the state of all member clusters that one decision reads. The
// simulator fills it from its model; the controller from the inventory.
//
// Build it with NewSnapshot, or Snapshots.New to share what did not change
// with the previous snapshot, and ApplyAssumptions; then treat it as
// read-only: any number of Place calls may read one snapshot concurrently. A
// snapshot shares Nodes, Labels and Taints with the clusters it was built
// from; they must not change while the snapshot is in use.
type Snapshot struct {
	// Clusters, sorted by name.
	Clusters []*ClusterInfo
	Latency  Latency
	// Measured says which links of Latency were measured, and when; set it
	// after NewSnapshot. Decisions read only Latency; explanations say
	// which values were measured.
	Measured MeasuredLatency
	// Traffic is, per workload key, the traffic each cluster receives (for
	// example requests per second); missing means none.
	Traffic map[string]map[string]float64
	// Carbon, when set, is the grid zones' carbon intensity, read from
	// CarbonAt (the time of the decision) on; set both after NewSnapshot.
	Carbon   CarbonIntensity
	CarbonAt time.Time

	// peak is, per workload key, the cluster that receives the most traffic.
	peak map[string]string
}

// NewSnapshot builds a snapshot of the clusters: per node, what is free
// (Allocatable - Requested, never negative), per cluster the totals over the
// schedulable nodes, and the clusters sorted by name. Assumed replicas are
// not included; apply them with ApplyAssumptions. Snapshots.New builds the
// same snapshot while deriving again only what changed.
func NewSnapshot(clusters []Cluster, latency Latency, traffic map[string]map[string]float64) *Snapshot {
	var b *Snapshots
	return b.New(clusters, nil, latency, traffic)
}

// own gives c a copy of what it shares with other snapshots, so that it can
// change without them seeing it.
func (c *ClusterInfo) own() {
	if !c.shared {
		return
	}
	free := slices.Clone(c.Free)
	for j := range free {
		if free[j].Scalar != nil {
			free[j].Scalar = maps.Clone(free[j].Scalar)
		}
	}
	c.Free, c.flags, c.shared = free, slices.Clone(c.flags), false
}

// refresh recomputes the node flags, totals and largest free amounts from
// Nodes and Free.
func (c *ClusterInfo) refresh() {
	c.TotalAllocatable, c.TotalFree, c.maxFree = Resources{}, Resources{}, Resources{}
	c.flags = slices.Grow(c.flags[:0], len(c.Nodes))[:len(c.Nodes)]
	c.anyFlag = false
	for j := range c.Nodes {
		n := &c.Nodes[j]
		c.flags[j] = 0
		if n.Unschedulable {
			c.flags[j] |= nodeCordoned
		}
		if _, tainted := UntoleratedTaint(n.Taints, nil); tainted {
			c.flags[j] |= nodeTainted
		}
		f := &c.Free[j]
		// Over every node: a pod may tolerate a cordon or a taint.
		c.maxFree.MilliCPU = max(c.maxFree.MilliCPU, f.MilliCPU)
		c.maxFree.Memory = max(c.maxFree.Memory, f.Memory)
		c.maxFree.Pods = max(c.maxFree.Pods, f.Pods)
		if c.flags[j] != 0 {
			c.anyFlag = true
		}
		if c.flags[j]&nodeCordoned != 0 {
			continue
		}
		c.TotalAllocatable.addTimes(&c.Nodes[j].Allocatable, 1, false)
		c.TotalFree.addTimes(f, 1, false)
	}
}

// Cluster returns the cluster with the name, or nil.
func (s *Snapshot) Cluster(name string) *ClusterInfo {
	i, found := slices.BinarySearchFunc(s.Clusters, name, func(c *ClusterInfo, name string) int { return strings.Compare(c.Name, name) })
	if !found {
		return nil
	}
	return s.Clusters[i]
}

// PeakTraffic returns the cluster that receives the most traffic for the
// workload (ties go to the first name), or false when none receives any.
func (s *Snapshot) PeakTraffic(key string) (string, bool) {
	if s.peak != nil {
		c, ok := s.peak[key]
		return c, ok
	}
	return peakOf(s.Traffic[key])
}

func peakTraffic(traffic map[string]map[string]float64) map[string]string {
	peak := make(map[string]string, len(traffic))
	for key, byCluster := range traffic {
		if c, ok := peakOf(byCluster); ok {
			peak[key] = c
		}
	}
	return peak
}

func peakOf(byCluster map[string]float64) (string, bool) {
	best, bestV := "", 0.0
	for c, v := range byCluster {
		if v > bestV || (v == bestV && v > 0 && c < best) {
			best, bestV = c, v
		}
	}
	return best, bestV > 0
}

// Between returns the round-trip time between clusters a and b, looked up
// in either direction; zero between a cluster and itself; false when the
// matrix has neither entry.
func (l Latency) Between(a, b string) (time.Duration, bool) {
	if a == b {
		return 0, true
	}
	if d, ok := l[a][b]; ok {
		return d, true
	}
	d, ok := l[b][a]
	return d, ok
}
