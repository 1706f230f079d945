package inventory

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
)

// Options tune an Inventory.
type Options struct {
	// SyncTimeout bounds how long Connect waits for a member's caches.
	SyncTimeout time.Duration
	// ChangeInterval is the most often a member's changes are announced to
	// subscribers; changes in between are merged.
	ChangeInterval time.Duration
	// MeasuredLatencyMaxAge is how long a measured round-trip time stands
	// before the declared one counts again (placement.ChooseLatency);
	// placement.DefaultMeasuredLatencyMaxAge when zero.
	MeasuredLatencyMaxAge time.Duration
}

func (o *Options) defaults() {
	if o.SyncTimeout == 0 {
		o.SyncTimeout = 30 * time.Second
	}
	if o.ChangeInterval == 0 {
		o.ChangeInterval = time.Second
	}
	if o.MeasuredLatencyMaxAge == 0 {
		o.MeasuredLatencyMaxAge = placement.DefaultMeasuredLatencyMaxAge
	}
}

// Inventory is the set of connected members and what is known of them. It
// is safe for concurrent use.
type Inventory struct {
	opts Options

	mu       sync.RWMutex
	members  map[string]*Member
	clusters map[string]clusterEntry
	// dirty are the members changed since the last announcement; true when
	// a change of readiness or connection was among them.
	dirty map[string]bool
	subs  []chan event.GenericEvent
	// owners are, per owner kind, the channels that receive an event naming
	// the owner of a member object that changed.
	owners map[string][]chan event.GenericEvent
	// latency is the matrix of the clusters' latencies, nil after they
	// changed; latencyEpoch counts the changes, so that a matrix built from
	// older latencies is not stored.
	latency      placement.Latency
	measured     placement.MeasuredLatency
	latencyEpoch uint64
	// snapshots shares what did not change between snapshots.
	snapshots placement.Snapshots
}

type clusterEntry struct {
	info      placement.Cluster // without nodes
	latencies map[string]time.Duration
	// measured is when the latencies that were measured were.
	measured map[string]time.Time
	// notReadySince is when the Cluster's Ready condition last turned away
	// from True; zero while it is ready.
	notReadySince time.Time
}

// New returns an empty inventory.
func New(opts Options) *Inventory {
	opts.defaults()
	return &Inventory{
		opts:     opts,
		members:  map[string]*Member{},
		clusters: map[string]clusterEntry{},
		dirty:    map[string]bool{},
		owners:   map[string][]chan event.GenericEvent{},
	}
}

// Start announces changes to subscribers until ctx ends, then disconnects
// every member. It makes the inventory a controller-runtime Runnable.
func (inv *Inventory) Start(ctx context.Context) error {
	t := time.NewTicker(inv.opts.ChangeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			// Stopped outside the lock: a member's informers wait for their
			// handlers, which take it (markDirty).
			inv.mu.Lock()
			members := inv.members
			inv.members = map[string]*Member{}
			inv.mu.Unlock()
			for _, m := range members {
				m.stop()
			}
			return nil
		case <-t.C:
			inv.flush()
		}
	}
}

// Subscribe returns a channel that receives a GenericEvent naming a Cluster
// whenever its capacity, health or description changed; ReadinessChanged
// tells an event of readiness or connection from one of capacity alone.
func (inv *Inventory) Subscribe() <-chan event.GenericEvent {
	ch := make(chan event.GenericEvent, 1024)
	inv.mu.Lock()
	inv.subs = append(inv.subs, ch)
	inv.mu.Unlock()
	return ch
}

// SubscribeOwners returns a channel that receives an event naming the owner
// (namespace and name, as a PartialObjectMetadata of kind) whenever a member
// object or pod Meridian made for an owner of that kind changes. Events are
// dropped when the channel is full; subscribers resync periodically.
func (inv *Inventory) SubscribeOwners(kind string) <-chan event.GenericEvent {
	ch := make(chan event.GenericEvent, 4096)
	inv.mu.Lock()
	inv.owners[kind] = append(inv.owners[kind], ch)
	inv.mu.Unlock()
	return ch
}

// ownerChanged announces that an object labelled for an owner changed.
func (inv *Inventory) ownerChanged(obj metav1.Object) {
	l := obj.GetLabels()
	if l[multiclusterv1alpha1.LabelManagedBy] != multiclusterv1alpha1.ManagedByMeridian {
		return
	}
	kind, ns, name := l[multiclusterv1alpha1.LabelOwnerKind], l[multiclusterv1alpha1.LabelOwnerNamespace], l[multiclusterv1alpha1.LabelOwnerName]
	if kind == "" || name == "" {
		return
	}
	inv.mu.RLock()
	subs := inv.owners[kind]
	inv.mu.RUnlock()
	if len(subs) == 0 {
		return
	}
	owner := &metav1.PartialObjectMetadata{}
	owner.Kind, owner.Namespace, owner.Name = kind, ns, name
	for _, ch := range subs {
		select {
		case ch <- event.GenericEvent{Object: owner}:
		default:
		}
	}
}

// readinessChanged marks a Cluster event that carries a change of the
// member's readiness or connection.
const readinessChanged = "inventory.meridian.dev/readiness-changed"

// ReadinessChanged reports whether an event of Subscribe carries a change
// of the member's readiness or connection (its first word included), not
// of its capacity alone.
func ReadinessChanged(obj client.Object) bool {
	_, ok := obj.GetAnnotations()[readinessChanged]
	return ok
}

// markDirty records a change of the member's capacity.
func (inv *Inventory) markDirty(name string) {
	inv.mu.Lock()
	if _, ok := inv.dirty[name]; !ok {
		inv.dirty[name] = false // false keeps a readiness change already recorded
	}
	inv.mu.Unlock()
}

// markReadiness records a change of the member's readiness or connection.
func (inv *Inventory) markReadiness(name string) {
	inv.mu.Lock()
	inv.dirty[name] = true
	inv.mu.Unlock()
}

func (inv *Inventory) flush() {
	inv.mu.Lock()
	names := slices.Sorted(maps.Keys(inv.dirty))
	readiness := maps.Clone(inv.dirty)
	clear(inv.dirty)
	subs := slices.Clone(inv.subs)
	inv.mu.Unlock()
	for _, name := range names {
		c := &multiclusterv1alpha1.Cluster{}
		c.Name = name
		if readiness[name] {
			c.Annotations = map[string]string{readinessChanged: "true"}
		}
		for _, ch := range subs {
			select {
			case ch <- event.GenericEvent{Object: c}:
			default:
				// A subscriber that is this far behind resyncs on its own.
			}
		}
	}
}

// Connect makes sure a connection to the member name with cfg exists and has
// synced. A connection made with the same kubeconfig hash is kept; one with
// another is replaced.
func (inv *Inventory) Connect(ctx context.Context, name string, cfg *rest.Config, hash string) (*Member, error) {
	inv.mu.RLock()
	m, ok := inv.members[name]
	inv.mu.RUnlock()
	if ok && m.hash == hash {
		return m, nil
	}
	m, err := startMember(ctx, name, cfg, hash, inv.opts.SyncTimeout, func() { inv.markDirty(name) }, inv.ownerChanged)
	if err != nil {
		return nil, err
	}
	inv.mu.Lock()
	old := inv.members[name]
	inv.members[name] = m
	inv.mu.Unlock()
	if old != nil {
		old.stop()
	}
	inv.markReadiness(name)
	return m, nil
}

// Disconnect stops the connection to member name and forgets it.
func (inv *Inventory) Disconnect(name string) {
	inv.mu.Lock()
	m := inv.members[name]
	delete(inv.members, name)
	delete(inv.clusters, name)
	inv.latenciesChanged()
	inv.mu.Unlock()
	if m != nil {
		m.stop()
	}
	inv.markReadiness(name)
}

// Member returns the connection to member name, if there is one.
func (inv *Inventory) Member(name string) (*Member, bool) {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	m, ok := inv.members[name]
	return m, ok
}

// Members returns the names of the connected members, sorted.
func (inv *Inventory) Members() []string {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	return slices.Sorted(maps.Keys(inv.members))
}

// SetCluster records what the Cluster object says of a member and whether
// it is ready.
func (inv *Inventory) SetCluster(c *multiclusterv1alpha1.Cluster, ready bool) {
	e := clusterEntry{
		info: placement.Cluster{
			Name:     c.Name,
			Labels:   c.Labels,
			Region:   c.Spec.Region,
			Zone:     c.Spec.Zone,
			Provider: c.Spec.Provider,
			GridZone: c.Spec.GridZone,
			// Jurisdiction keys the residency filter.
			Jurisdiction: c.Spec.Jurisdiction,
			Cloud:        c.Spec.Cloud,
			Ready:        ready,
			Taints:       c.Spec.Taints,
			Prices:       prices(c.Spec.Prices),
		},
		latencies: map[string]time.Duration{},
		measured:  map[string]time.Time{},
	}
	e.chooseLatencies(c, time.Now(), inv.opts.MeasuredLatencyMaxAge)
	if !ready {
		// The condition's transition time survives restarts of Meridian.
		e.notReadySince = time.Now()
		if cond := meta.FindStatusCondition(c.Status.Conditions, multiclusterv1alpha1.ClusterReady); cond != nil && cond.Status != metav1.ConditionTrue {
			e.notReadySince = cond.LastTransitionTime.Time
		}
	}
	inv.mu.Lock()
	old, had := inv.clusters[c.Name]
	inv.clusters[c.Name] = e
	if !had || !maps.Equal(old.latencies, e.latencies) || !maps.EqualFunc(old.measured, e.measured, time.Time.Equal) {
		inv.latenciesChanged()
	}
	inv.mu.Unlock()
	if !had || old.info.Ready != ready {
		inv.markReadiness(c.Name)
	}
}

// NotReadySince returns when member name stopped being ready, and false when
// it is ready or unknown.
func (inv *Inventory) NotReadySince(name string) (time.Time, bool) {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	e, ok := inv.clusters[name]
	if !ok || e.info.Ready {
		return time.Time{}, false
	}
	return e.notReadySince, true
}

func prices(p *multiclusterv1alpha1.ClusterPrices) placement.Prices {
	if p == nil {
		return placement.Prices{}
	}
	var out placement.Prices
	if m := p.MemoryGiBHour; m != nil {
		out.MemGiBHour, out.Currency = m.Amount.AsApproximateFloat64(), m.Currency
	}
	if m := p.CPUHour; m != nil {
		out.CPUHour, out.Currency = m.Amount.AsApproximateFloat64(), m.Currency
	}
	return out
}

// SnapshotFor returns Snapshot(traffic) with the replicas a reserves that
// are not yet visible in the members. The pods each member shows bound for
// an owner are reported to a first (Assumptions.Observe), from the
// inventory's live counts, so that a pod is never counted twice between
// being bound and its owner's next reconcile. Workload keys in a must be
// OwnerKey values.
func (inv *Inventory) SnapshotFor(traffic map[string]map[string]float64, a *placement.Assumptions) *placement.Snapshot {
	a.Refresh(inv.bound)
	s := inv.Snapshot(traffic)
	s.ApplyAssumptions(a)
	return s
}

// bound returns how many pods of owner key member cluster shows bound.
func (inv *Inventory) bound(key, cluster string) int32 {
	inv.mu.RLock()
	m, ok := inv.members[cluster]
	inv.mu.RUnlock()
	if !ok {
		return 0
	}
	return m.capacity.boundOf(key)
}

// Readiness returns, for every known member, whether it is ready and
// connected: what a snapshot's Ready says, without copying any node.
func (inv *Inventory) Readiness() map[string]bool {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	out := make(map[string]bool, len(inv.clusters))
	for name, e := range inv.clusters {
		_, connected := inv.members[name]
		out[name] = e.info.Ready && connected
	}
	return out
}

// Connecting returns the members whose Cluster says Ready but that this
// inventory has not connected to yet: after a restart, until their first
// connection, what they run is unknown, not absent.
func (inv *Inventory) Connecting() []string {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	var out []string
	for name, e := range inv.clusters {
		if _, connected := inv.members[name]; e.info.Ready && !connected {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Snapshot returns the placement framework's view of every known cluster. A
// cluster without a live connection is in it, not ready and without nodes, so
// that decisions explain why it was not used. It copies only the members
// whose nodes or pods changed since the last snapshot (see
// placement.Snapshots).
func (inv *Inventory) Snapshot(traffic map[string]map[string]float64) *placement.Snapshot {
	inv.mu.RLock()
	clusters := make([]placement.Cluster, 0, len(inv.clusters))
	gens := make([]uint64, 0, len(inv.clusters))
	for name, e := range inv.clusters {
		c := e.info
		var gen uint64
		if m, ok := inv.members[name]; ok {
			c.Nodes, gen = m.capacity.shared()
		} else {
			c.Ready = false
		}
		clusters = append(clusters, c)
		gens = append(gens, gen)
	}
	latency, measured, epoch := inv.latency, inv.measured, inv.latencyEpoch
	built := latency == nil
	if built {
		latency = placement.Latency{}
		for name, e := range inv.clusters {
			for other, d := range e.latencies {
				setLatency(latency, name, other, d)
			}
		}
		measured = measuredLinks(inv.clusters, latency)
	}
	inv.mu.RUnlock()
	if built {
		inv.mu.Lock()
		if inv.latencyEpoch == epoch {
			inv.latency, inv.measured = latency, measured
		}
		inv.mu.Unlock()
	}
	s := inv.snapshots.New(clusters, gens, latency, traffic)
	s.Measured = measured
	return s
}

// measuredLinks says which links of the matrix hold a measurement, and
// when it was made: the link a→b holds a's own measurement when a chose it
// for its row, or b's when a has no value of its own for b and b's was
// copied over (setLatency).
func measuredLinks(clusters map[string]clusterEntry, latency placement.Latency) placement.MeasuredLatency {
	out := placement.MeasuredLatency{}
	set := func(a, b string, at time.Time) {
		if out[a] == nil {
			out[a] = map[string]time.Time{}
		}
		out[a][b] = at
	}
	for a, row := range latency {
		for b := range row {
			if at, ok := clusters[a].measured[b]; ok {
				set(a, b, at)
				continue
			}
			if _, own := clusters[a].latencies[b]; own {
				continue // a's own declared value
			}
			if at, ok := clusters[b].measured[a]; ok {
				set(a, b, at)
			}
		}
	}
	return out
}

// chooseLatencies sets e's round-trip times from c: each link's measured
// one while it is fresh, else its declared one (placement.ChooseLatency).
func (e *clusterEntry) chooseLatencies(c *multiclusterv1alpha1.Cluster, now time.Time, maxAge time.Duration) {
	declared := map[string]time.Duration{}
	for _, l := range c.Spec.Latencies {
		declared[string(l.Cluster)] = l.RTT.Duration
	}
	measured := map[string]multiclusterv1alpha1.ClusterLatency{}
	for _, l := range c.Status.Latencies {
		if l.MeasuredAt != nil {
			measured[string(l.Cluster)] = l
		}
	}
	for _, other := range slices.Sorted(maps.Keys(declared)) {
		if _, ok := measured[other]; !ok {
			e.latencies[other] = declared[other]
		}
	}
	for other, m := range measured {
		d, hasDeclared := declared[other]
		rtt, at, ok := placement.ChooseLatency(d, hasDeclared, m.RTT.Duration, m.MeasuredAt.Time, true, now, maxAge)
		if !ok {
			continue
		}
		e.latencies[other] = rtt
		if !at.IsZero() {
			e.measured[other] = at
		}
	}
}

// latenciesChanged drops the latency matrix. The caller holds inv.mu.
func (inv *Inventory) latenciesChanged() {
	inv.latency = nil
	inv.latencyEpoch++
}

// setLatency records d between a and b in both directions, unless the other
// direction was declared already (each cluster's own view of its links wins
// for its row).
func setLatency(l placement.Latency, a, b string, d time.Duration) {
	if l[a] == nil {
		l[a] = map[string]time.Duration{}
	}
	l[a][b] = d
	if l[b] == nil {
		l[b] = map[string]time.Duration{}
	}
	if _, ok := l[b][a]; !ok {
		l[b][a] = d
	}
}

// OwnerSource is a controller source that enqueues the owner (namespace and
// name) of every member object or pod of an owner of kind that changes.
func (inv *Inventory) OwnerSource(kind string) source.Source {
	return source.Channel(inv.SubscribeOwners(kind), handler.EnqueueRequestsFromMapFunc(
		func(_ context.Context, o client.Object) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}}}
		}))
}
