package learned

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/meridian-dev/meridian/internal/learn"
	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "learned"

// UnknownLatencyMs is the latency a cluster gets when the workload has a
// latency origin but the latency matrix does not say how far the cluster
// is: far enough not to be mistaken for a near one.
const UnknownLatencyMs = 100

//go:embed default-model.json
var defaultModel []byte

// Learned scores clusters with a learned cluster model.
type Learned struct {
	model   *learn.ClusterModel
	scorers *learn.ClusterScorerPool
}

var (
	_ placement.ScorePlugin     = &Learned{}
	_ placement.ScoreNormalizer = &Learned{}
)

// New returns the plugin with the model shipped with Meridian.
func New() (placement.Plugin, error) {
	m, err := learn.ReadClusterModel(bytes.NewReader(defaultModel))
	if err != nil {
		return nil, fmt.Errorf("failed to read the default cluster model: %w", err)
	}
	return NewWithModel(m), nil
}

// Factory returns a factory of the plugin with the cluster model file at
// path, for a registry entry that replaces New's.
func Factory(path string) placement.PluginFactory {
	return func() (placement.Plugin, error) {
		m, err := learn.LoadClusterModel(path)
		if err != nil {
			return nil, err
		}
		return NewWithModel(m), nil
	}
}

// NewWithModel returns the plugin with m. m's network must not change
// while the plugin scores, except from the goroutine that calls it (the
// training environment, which scores with the network it trains).
func NewWithModel(m *learn.ClusterModel) *Learned {
	return &Learned{model: m, scorers: learn.NewClusterScorerPool(m)}
}

// Model returns the plugin's model.
func (l *Learned) Model() *learn.ClusterModel { return l.model }

// Name returns Name.
func (*Learned) Name() string { return Name }

// Score returns MinScore: a cluster's score depends on every candidate, so
// NormalizeScore computes them all.
func (*Learned) Score(context.Context, *placement.Workload, *placement.ClusterInfo, *placement.Snapshot) (int64, *placement.Status) {
	return placement.MinScore, nil
}

// NormalizeScore scores the candidates with the model: MaxScore for the
// highest Q-value among the clusters that can take a replica, the others
// linearly down to MinScore for the lowest, and MinScore for the clusters
// that cannot take one.
//
// The model weighs each cluster's price per CPU-hour, so the prices must be
// in one currency: candidates priced in two are refused with an error that
// names the Clusters' spec.prices, rather than compared.
func (l *Learned) NormalizeScore(_ context.Context, w *placement.Workload, clusters []*placement.ClusterInfo, scores []int64) *placement.Status {
	if len(clusters) == 0 {
		return nil
	}
	if st := oneCurrency(clusters); st != nil {
		return st
	}
	states := make([]learn.ClusterState, len(clusters))
	for i, c := range clusters {
		states[i] = State(w, c)
	}
	q := make([]float64, len(clusters))
	mask := make([]bool, len(clusters))
	ws := Workload(w)
	s := l.scorers.Get()
	s.Score(&ws, states, q, mask)
	l.scorers.Put(s)
	learn.NormalizeScores(q, mask, placement.MaxScore, scores)
	return nil
}

// oneCurrency is nil when the priced clusters are priced in one currency,
// else an error that names two of them and the field to change.
func oneCurrency(clusters []*placement.ClusterInfo) *placement.Status {
	var first *placement.ClusterInfo
	for _, c := range clusters {
		switch {
		case c.Prices.Currency == "":
		case first == nil:
			first = c
		case c.Prices.Currency != first.Prices.Currency:
			return &placement.Status{Code: placement.Error, Plugin: Name, Reason: fmt.Sprintf(
				"cluster %q is priced in %s and cluster %q in %s: the learned scorer weighs prices, so spec.prices of every Cluster must be in one currency (or the workload another policy)",
				first.Name, first.Prices.Currency, c.Name, c.Prices.Currency)}
		}
	}
	return nil
}

// Workload is w as the model sees it.
func Workload(w *placement.Workload) learn.WorkloadState {
	return learn.WorkloadState{MilliCPU: w.PodRequests.MilliCPU, Memory: w.PodRequests.Memory, Replicas: w.Replicas}
}

// State is cluster c as the model sees it for workload w: totals over the
// schedulable nodes, the largest free node, the replicas of w that fit
// (none when w marks c Full) and the latency from w's users.
func State(w *placement.Workload, c *placement.ClusterInfo) learn.ClusterState {
	st := learn.ClusterState{
		AllocatableMilliCPU: c.TotalAllocatable.MilliCPU,
		AllocatableMemory:   c.TotalAllocatable.Memory,
		AllocatablePods:     c.TotalAllocatable.Pods,
		RequestedMilliCPU:   c.TotalAllocatable.MilliCPU - c.TotalFree.MilliCPU,
		RequestedMemory:     c.TotalAllocatable.Memory - c.TotalFree.Memory,
		RequestedPods:       c.TotalAllocatable.Pods - c.TotalFree.Pods,
		Nodes:               len(c.Nodes),
		Cloud:               c.Cloud,
		CPUHourPrice:        c.Prices.CPUHour,
	}
	for i := range c.Free {
		if i < len(c.Nodes) && c.Nodes[i].Unschedulable {
			continue
		}
		st.LargestFreeMilliCPU = max(st.LargestFreeMilliCPU, c.Free[i].MilliCPU)
		st.LargestFreeMemory = max(st.LargestFreeMemory, c.Free[i].Memory)
	}
	if !w.Full[c.Name] {
		st.Fit = int64(c.FitCount(w.PodRequests, w.Tolerations))
	}
	if origin := latencyOrigin(w); origin != "" {
		st.LatencyMs = UnknownLatencyMs
		if d, ok := c.LatencyFrom(origin); ok && d >= 0 {
			st.LatencyMs = float64(d) / float64(time.Millisecond)
		}
	}
	return st
}

// latencyOrigin is where w's users are: its latency origin, else its first
// location, else nowhere.
func latencyOrigin(w *placement.Workload) string {
	if w.LatencyOrigin != "" {
		return w.LatencyOrigin
	}
	if len(w.Locations) > 0 {
		return w.Locations[0]
	}
	return ""
}
