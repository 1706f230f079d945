package placement

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

// Framework places workloads: it runs the filters and score plugins of the
// workload's policy over a snapshot, then divides the replicas among the
// clusters. It is safe for concurrent use.
type Framework struct {
	profiles map[Policy]*profile
	cycles   sync.Pool // of *cycle, the scratch space of one Place call
}

type profile struct {
	filters   []FilterPlugin
	scores    []scorer
	rebalance bool
}

type scorer struct {
	name       string
	plugin     ScorePlugin
	normalizer ScoreNormalizer // nil when the plugin does not normalize
	weight     int64
}

// NewFramework builds a framework with one profile per policy, creating each
// plugin the profiles name once from the registry. It fails, naming the
// culprit, on an unknown plugin or policy, a policy served twice, a plugin
// listed under an extension point it does not implement, or a weight that is
// not positive.
func NewFramework(r Registry, profiles ...Profile) (*Framework, error) {
	if len(profiles) == 0 {
		return nil, fmt.Errorf("failed to build the placement framework: %w: no profiles", ErrInvalidProfile)
	}
	f := &Framework{profiles: make(map[Policy]*profile, len(profiles))}
	plugins := make(map[string]Plugin)
	get := func(name string) (Plugin, error) {
		if p, ok := plugins[name]; ok {
			return p, nil
		}
		factory, ok := r[name]
		if !ok {
			return nil, fmt.Errorf("%w %q", ErrUnknownPlugin, name)
		}
		p, err := factory()
		if err != nil {
			return nil, fmt.Errorf("failed to create plugin %q: %w", name, err)
		}
		plugins[name] = p
		return p, nil
	}
	for _, pr := range profiles {
		if !slices.Contains(knownPolicies, pr.Policy) {
			return nil, fmt.Errorf("failed to build the profile of policy %q: %w: %w, valid policies are %q", pr.Policy, ErrInvalidProfile, ErrUnknownPolicy, knownPolicies)
		}
		if _, dup := f.profiles[pr.Policy]; dup {
			return nil, fmt.Errorf("failed to build the profile of policy %q: %w: the policy has two profiles", pr.Policy, ErrInvalidProfile)
		}
		built := &profile{rebalance: pr.Rebalance}
		for _, name := range pr.Filters {
			p, err := get(name)
			if err != nil {
				return nil, fmt.Errorf("failed to build the profile of policy %q: filter: %w", pr.Policy, err)
			}
			fp, ok := p.(FilterPlugin)
			if !ok {
				return nil, fmt.Errorf("failed to build the profile of policy %q: %w: plugin %q is not a filter plugin", pr.Policy, ErrInvalidProfile, name)
			}
			built.filters = append(built.filters, fp)
		}
		for _, wp := range pr.Scores {
			p, err := get(wp.Name)
			if err != nil {
				return nil, fmt.Errorf("failed to build the profile of policy %q: score: %w", pr.Policy, err)
			}
			sp, ok := p.(ScorePlugin)
			if !ok {
				return nil, fmt.Errorf("failed to build the profile of policy %q: %w: plugin %q is not a score plugin", pr.Policy, ErrInvalidProfile, wp.Name)
			}
			if wp.Weight <= 0 {
				return nil, fmt.Errorf("failed to build the profile of policy %q: %w: plugin %q has weight %d, want a positive weight", pr.Policy, ErrInvalidProfile, wp.Name, wp.Weight)
			}
			n, _ := p.(ScoreNormalizer)
			built.scores = append(built.scores, scorer{name: wp.Name, plugin: sp, normalizer: n, weight: wp.Weight})
		}
		f.profiles[pr.Policy] = built
	}
	return f, nil
}

// candidate is a cluster that passed the filters, with what the division
// needs. The candidates of a Place call are sorted into the policy's order;
// they hold no pointers, so that sorting them is a plain copy.
type candidate struct {
	idx     int   // index in Snapshot.Clusters and Decision.Clusters
	cloud   bool  // the cluster is a cloud cluster
	primary bool  // chosen first, rather than taking overflow
	total   int64 // weighted score
	current int64 // replicas the workload has there now
	cap     int64 // current + fit: what the cluster can hold for the workload
	assign  int64 // replicas the decision gives it
	rem     int64 // remainder of a proportional share
}

// cycle is the scratch space of one Place call, pooled so that the hot
// path does not allocate it each time.
type cycle struct {
	cands  []candidate
	sorted []candidate
	keys   []uint64
	infos  []*ClusterInfo
	raw    []int64
	sel    []int
}

// Rebalances reports whether the profile of policy places every replica
// afresh on each decision (Profile.Rebalance) rather than keeping what
// runs; false for a policy the framework does not serve.
func (f *Framework) Rebalances(policy Policy) bool {
	p := f.profiles[policy]
	return p != nil && p.rebalance
}

// Place decides where the replicas of w go in snapshot s: it filters every
// cluster, counts how many replicas fit in each one left (node by node),
// scores them with the policy's plugins, orders them (cloud clusters last,
// then by total score, then by name) and divides the replicas. The decision
// explains every cluster of the snapshot. Place only reads s and w; it fails
// on an invalid workload, a policy without a profile, a cancelled context,
// or a score plugin that fails.
func (f *Framework) Place(ctx context.Context, s *Snapshot, w *Workload) (*Decision, error) {
	cy, d, err := f.rank(ctx, s, w, true)
	if err != nil {
		return nil, err
	}
	defer f.release(cy)
	cands := cy.sortByPolicyOrder()
	d.Unplaced = int32(divide(w, cands, cy))
	d.Assignments = assignments(w, s, cands)
	return d, nil
}

// Duplicate decides which clusters get a copy of a workload that is not
// divided (a kind without replicas, such as a ConfigMap, a Service or a
// DaemonSet): the clusters the filters keep, in the policy's order (cloud
// clusters last, then by score), as many as NumberOfLocations when set,
// else as many as Locations when given (so that a preferred cluster ruled
// out is replaced by the next one when substitution allows it), else all.
// Each chosen cluster gets one Assignment of one replica, the copy;
// Unplaced is 1 when no cluster is chosen. Capacity plays no part: w's
// PodRequests are not counted.
func (f *Framework) Duplicate(ctx context.Context, s *Snapshot, w *Workload) (*Decision, error) {
	cy, d, err := f.rank(ctx, s, w, false)
	if err != nil {
		return nil, err
	}
	defer f.release(cy)
	cands := cy.sortByPolicyOrder()
	want := len(cands)
	switch {
	case w.NumberOfLocations > 0:
		want = min(want, int(w.NumberOfLocations))
	case len(w.Locations) > 0:
		want = min(want, len(w.Locations))
	}
	for k := range cands[:want] {
		cands[k].assign, cands[k].primary = 1, true
	}
	d.Assignments = assignments(w, s, cands[:want])
	if want == 0 {
		d.Unplaced = 1
	}
	return d, nil
}

// rank filters every cluster of s for w and scores those left: the
// candidates are in the returned cycle, which the caller releases. With
// fit, each candidate's room for w's replicas is counted node by node.
func (f *Framework) rank(ctx context.Context, s *Snapshot, w *Workload, fit bool) (*cycle, *Decision, error) {
	if err := w.Validate(); err != nil {
		return nil, nil, fmt.Errorf("failed to place workload: %w", err)
	}
	p := f.profiles[w.Policy]
	if p == nil {
		return nil, nil, fmt.Errorf("failed to place workload %q: %w %q: the framework has no profile for it", w.Key, ErrUnknownPolicy, w.Policy)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("failed to place workload %q: %w", w.Key, err)
	}
	cy, _ := f.cycles.Get().(*cycle)
	if cy == nil {
		cy = &cycle{}
	}
	d := &Decision{Clusters: make([]ClusterResult, len(s.Clusters))}
	cands := cy.cands[:0]
	infos := cy.infos[:0]
	d.latencies = latencyView{origin: latencyOrigin(w), latency: s.Latency, measured: s.Measured}
	for i, c := range s.Clusters {
		r := &d.Clusters[i]
		r.Cluster = c.Name
		if st := p.filter(ctx, w, c); st != nil {
			r.Filter = st
			continue
		}
		var room int32
		if fit {
			room = c.FitCount(w.PodRequests, w.Tolerations)
			if w.Full[c.Name] {
				room = 0
			}
		}
		r.Fit = room
		cur := int64(w.Current[c.Name])
		cand := candidate{idx: i, cloud: c.Cloud, current: cur, cap: cur + int64(room)}
		if p.rebalance {
			cand.current = 0 // nothing to keep; the capacity still counts it
		}
		cands = append(cands, cand)
		infos = append(infos, c)
	}
	cy.cands, cy.infos = cands, infos
	if err := ctx.Err(); err != nil {
		f.release(cy)
		return nil, nil, fmt.Errorf("failed to place workload %q: %w", w.Key, err)
	}
	if err := p.score(ctx, s, w, d, cy); err != nil {
		f.release(cy)
		return nil, nil, fmt.Errorf("failed to place workload %q: %w", w.Key, err)
	}
	return cy, d, nil
}

// release gives a cycle back for the next decision.
func (f *Framework) release(cy *cycle) {
	clear(cy.infos) // let the snapshot go
	f.cycles.Put(cy)
}

// filter runs the filters in order and returns the first rejection, with
// its plugin named, or nil.
func (p *profile) filter(ctx context.Context, w *Workload, c *ClusterInfo) *Status {
	for _, fp := range p.filters {
		if st := fp.Filter(ctx, w, c); !st.IsSuccess() {
			if st.Plugin == "" {
				st.Plugin = fp.Name()
			}
			return st
		}
	}
	return nil
}

// score runs every score plugin over the candidates, normalizes, weighs and
// sums, and records the per-plugin scores in the candidates' results.
func (p *profile) score(ctx context.Context, s *Snapshot, w *Workload, d *Decision, cy *cycle) error {
	cands, ns := cy.cands, len(p.scores)
	if len(cands) == 0 || ns == 0 {
		return nil
	}
	scores := make([]PluginScore, len(cands)*ns)
	raw := slices.Grow(cy.raw[:0], len(cands))[:len(cands)]
	cy.raw = raw
	for j, sc := range p.scores {
		for k := range cands {
			v, st := sc.plugin.Score(ctx, w, cy.infos[k], s)
			if !st.IsSuccess() {
				return fmt.Errorf("%w: score plugin %q on cluster %q: %s", ErrPluginFailed, sc.name, cy.infos[k].Name, st.Reason)
			}
			raw[k] = v
		}
		if sc.normalizer != nil {
			if st := sc.normalizer.NormalizeScore(ctx, w, cy.infos, raw); !st.IsSuccess() {
				return fmt.Errorf("%w: score plugin %q normalizing: %s", ErrPluginFailed, sc.name, st.Reason)
			}
		}
		for k := range cands {
			if raw[k] < MinScore || raw[k] > MaxScore {
				return fmt.Errorf("%w: score plugin %q gave cluster %q score %d, outside [%d, %d]", ErrPluginFailed, sc.name, cy.infos[k].Name, raw[k], MinScore, MaxScore)
			}
			v := raw[k] * sc.weight
			scores[k*ns+j] = PluginScore{Plugin: sc.name, Score: v}
			cands[k].total += v
		}
	}
	for k := range cands {
		r := &d.Clusters[cands[k].idx]
		r.Scores = scores[k*ns : (k+1)*ns : (k+1)*ns]
		r.Total = cands[k].total
	}
	return nil
}

// sortByPolicyOrder returns the candidates in policy order (see
// byPolicyOrder). When the scores and indices fit, it sorts one packed
// integer per candidate instead of calling a comparison, which is several
// times faster for a thousand clusters.
func (cy *cycle) sortByPolicyOrder() []candidate {
	cands := cy.cands
	if len(cands) == 0 {
		return cands
	}
	lo, hi := cands[0].total, cands[0].total
	for k := range cands {
		lo, hi = min(lo, cands[k].total), max(hi, cands[k].total)
	}
	idxBits := bits.Len(uint(len(cands)))
	if hi-lo < 0 || bits.Len64(uint64(hi-lo)) > 63-idxBits {
		slices.SortFunc(cands, byPolicyOrder)
		return cands
	}
	keys := slices.Grow(cy.keys[:0], len(cands))
	for k := range cands {
		key := uint64(hi-cands[k].total)<<idxBits | uint64(k)
		if cands[k].cloud {
			key |= 1 << 63
		}
		keys = append(keys, key)
	}
	slices.Sort(keys)
	sorted := slices.Grow(cy.sorted[:0], len(cands))
	for _, key := range keys {
		sorted = append(sorted, cands[key&(1<<idxBits-1)])
	}
	cy.keys, cy.sorted = keys, sorted
	return sorted
}

// byPolicyOrder orders candidates as the division visits them: clusters
// that are not cloud clusters first, then the higher total score, then the
// name (the snapshot's order).
func byPolicyOrder(a, b candidate) int {
	if a.cloud != b.cloud {
		if b.cloud {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(b.total, a.total); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}
