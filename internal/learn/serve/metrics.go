package serve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/meridian-dev/meridian/internal/traffic"
)

// Defaults of MetricsConfig.
const (
	// DefaultLatencyQuery is the PromQL query whose samples are each node's
	// latency to its users in milliseconds, one series per node.
	DefaultLatencyQuery = "meridian_node_latency_ms"
	// DefaultNodeLabel is the label naming a sample's node.
	DefaultNodeLabel = "node"
	// DefaultRefresh is how often the measurements are read again.
	DefaultRefresh = 5 * time.Second
)

// MetricsConfig says where a node's measurements come from.
type MetricsConfig struct {
	// URL is the Prometheus server's base URL.
	URL string
	// LatencyQuery is an instant-vector query with one sample per node,
	// in milliseconds; DefaultLatencyQuery when empty.
	LatencyQuery string
	// IdleWattsQuery and PeakWattsQuery, when both set, give the nodes'
	// power; otherwise it comes from the nodes' objects (NodePower).
	IdleWattsQuery, PeakWattsQuery string
	// NodeLabel is the label naming a sample's node; DefaultNodeLabel when
	// empty.
	NodeLabel string
	// Refresh is how often Run reads the measurements; DefaultRefresh when
	// zero.
	Refresh time.Duration
}

// Measured is what Prometheus says of one node.
type Measured struct {
	HasLatency           bool
	LatencyMs            float64
	HasPower             bool
	IdleWatts, PeakWatts float64
}

// Metrics holds the latest measurements of every node, read from
// Prometheus by Refresh. Its methods are safe for concurrent use; Lookup
// never waits for Prometheus, so scoring never does either.
type Metrics struct {
	refresh time.Duration
	latency traffic.Source
	idle    traffic.Source
	peak    traffic.Source

	mu      sync.RWMutex
	nodes   map[string]Measured
	lastErr error
	readAt  time.Time
	version uint64
}

// NewMetrics checks cfg; it does not contact Prometheus.
func NewMetrics(cfg MetricsConfig) (*Metrics, error) {
	if cfg.LatencyQuery == "" {
		cfg.LatencyQuery = DefaultLatencyQuery
	}
	if cfg.NodeLabel == "" {
		cfg.NodeLabel = DefaultNodeLabel
	}
	if (cfg.IdleWattsQuery == "") != (cfg.PeakWattsQuery == "") {
		return nil, fmt.Errorf("IdleWattsQuery %q and PeakWattsQuery %q: want both or neither", cfg.IdleWattsQuery, cfg.PeakWattsQuery)
	}
	var (
		src Sources
		err error
	)
	newSource := func(field, query string) (traffic.Source, error) {
		p, err := traffic.New(traffic.Config{URL: cfg.URL, Query: query, ClusterLabel: cfg.NodeLabel})
		if err != nil {
			return nil, fmt.Errorf("failed to configure Prometheus for %s: %w", field, err)
		}
		return p, nil
	}
	if src.Latency, err = newSource("LatencyQuery", cfg.LatencyQuery); err != nil {
		return nil, err
	}
	if cfg.IdleWattsQuery != "" {
		if src.IdleWatts, err = newSource("IdleWattsQuery", cfg.IdleWattsQuery); err != nil {
			return nil, err
		}
		if src.PeakWatts, err = newSource("PeakWattsQuery", cfg.PeakWattsQuery); err != nil {
			return nil, err
		}
	}
	return NewMetricsFrom(src, cfg.Refresh), nil
}

// Sources are where Metrics reads each measurement, one value per node
// name; IdleWatts and PeakWatts may be nil together. A traffic.Prometheus
// reads a real server; a traffic.Static, set for SourceWorkload, is the
// in-memory one.
type Sources struct {
	Latency, IdleWatts, PeakWatts traffic.Source
}

// SourceWorkload is the workload Metrics asks its sources about; a query
// template may ignore it.
var SourceWorkload = traffic.Workload{Namespace: "meridian", Name: "learned-scoring"}

// NewMetricsFrom returns Metrics reading src every refresh
// (DefaultRefresh when zero).
func NewMetricsFrom(src Sources, refresh time.Duration) *Metrics {
	if refresh == 0 {
		refresh = DefaultRefresh
	}
	m := &Metrics{refresh: refresh, latency: src.Latency, nodes: map[string]Measured{}}
	if src.IdleWatts != nil && src.PeakWatts != nil {
		m.idle, m.peak = src.IdleWatts, src.PeakWatts
	}
	return m
}

// Refresh reads every query once and, when all succeed, replaces the
// measurements; on failure the previous ones stay and the error is
// returned (and kept for Status).
func (m *Metrics) Refresh(ctx context.Context) error {
	next, err := m.read(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastErr = err
	if err != nil {
		return err
	}
	m.nodes, m.readAt = next, time.Now()
	m.version++
	return nil
}

func (m *Metrics) read(ctx context.Context) (map[string]Measured, error) {
	w := SourceWorkload
	latency, err := m.latency.Traffic(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("failed to read node latencies: %w", err)
	}
	next := make(map[string]Measured, len(latency))
	for node, ms := range latency {
		next[node] = Measured{HasLatency: true, LatencyMs: ms}
	}
	if m.idle == nil {
		return next, nil
	}
	idle, err := m.idle.Traffic(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("failed to read node idle watts: %w", err)
	}
	peak, err := m.peak.Traffic(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("failed to read node peak watts: %w", err)
	}
	for node, i := range idle {
		if p, ok := peak[node]; ok {
			v := next[node]
			v.HasPower, v.IdleWatts, v.PeakWatts = true, i, p
			next[node] = v
		}
	}
	return next, nil
}

// Run refreshes every cfg.Refresh until ctx ends, calling onErr (when not
// nil) with each failure. Its first read is a period after it starts: the
// caller reads once before it serves (Refresh), so that it never scores
// with no measurements.
func (m *Metrics) Run(ctx context.Context, onErr func(error)) {
	t := time.NewTicker(m.refresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := m.Refresh(ctx); err != nil && onErr != nil && ctx.Err() == nil {
			onErr(err)
		}
	}
}

// Lookup returns the latest measurements of node.
func (m *Metrics) Lookup(node string) Measured {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.nodes[node]
}

// Version counts the successful refreshes: a caller that keeps the
// measurements per node reads them again when it changes.
func (m *Metrics) Version() uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.version
}

// Status says how many nodes have measurements, when they were read, and
// the last refresh's error.
func (m *Metrics) Status() (nodes int, readAt time.Time, lastErr error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.nodes), m.readAt, m.lastErr
}
