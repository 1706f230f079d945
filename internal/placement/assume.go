package placement

import (
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// Assumptions remembers the replicas that decisions gave member clusters but
// that the clusters do not show yet, so that the next snapshot reserves them
// and two decisions back to back never promise the same capacity twice. It
// is kube-scheduler's "assumed pod" idea one level up, and it is safe for
// concurrent use.
//
// The contract, for the controller and the simulator alike:
//
//  0. Where decisions run concurrently, take the turn (Turn) and hold it
//     until step 3: two decisions on one snapshot would both take the same
//     free room.
//  1. Build a snapshot from what the member clusters show, then call
//     Snapshot.ApplyAssumptions once, before the snapshot is shared.
//  2. Place the workload with Workload.Current set to the replicas the
//     snapshot already holds for it per cluster (what is visible plus what is
//     assumed; the previous decision's assignments are a safe value).
//  3. Call Assume with the workload and the decision. For each cluster the
//     framework then expects Desired replicas, of which it assumes those not
//     yet visible.
//  4. Whenever a member cluster reports how many of the workload's pods it
//     holds (their requests counted in its nodes' Requested), call Observe.
//     An entry disappears once everything desired is visible.
//  5. Call Forget when the workload is deleted or its decision is dropped.
//
// The assumed count per cluster is max(0, desired - visible). Assumed pods are
// reserved node by node, first fit in node order: the member's own scheduler
// may spread them differently, so until they are visible the per-node free
// amounts are an estimate while the cluster totals are exact.
type Assumptions struct {
	// turn is held from a decision's snapshot to its Assume.
	turn  sync.Mutex
	mu    sync.Mutex
	byKey map[string]map[string]*assumption
}

type assumption struct {
	desired, visible int32
	request          Resources
	tolerations      []corev1.Toleration
}

func (a *assumption) assumed() int32 { return max(a.desired-a.visible, 0) }

// NewAssumptions returns an empty set of assumptions.
func NewAssumptions() *Assumptions {
	return &Assumptions{byKey: make(map[string]map[string]*assumption)}
}

// Turn waits until no other decision holds the turn, takes it, and returns
// the function that gives it back. Hold it from building the snapshot
// (Snapshot.ApplyAssumptions) to Assume, so that decisions of every kind of
// workload sharing these assumptions take turns while their reads and
// writes overlap.
func (a *Assumptions) Turn() (done func()) {
	a.turn.Lock()
	return a.turn.Unlock
}

// Assume records decision d for workload w: every cluster of d is expected to
// hold its assigned replicas, and every cluster of w.Current that d leaves
// out is expected to hold none. A cluster seen for the first time is taken
// to show w.Current replicas already.
func (a *Assumptions) Assume(w *Workload, d *Decision) {
	a.mu.Lock()
	defer a.mu.Unlock()
	byCluster := a.byKey[w.Key]
	if byCluster == nil {
		byCluster = make(map[string]*assumption)
		a.byKey[w.Key] = byCluster
	}
	set := func(cluster string, desired int32) {
		e := byCluster[cluster]
		if e == nil {
			e = &assumption{visible: w.Current[cluster]}
			byCluster[cluster] = e
		}
		e.desired = desired
		e.request = w.PodRequests.Clone()
		e.tolerations = w.Tolerations
	}
	for cluster := range w.Current {
		set(cluster, 0)
	}
	for _, as := range d.Assignments {
		set(as.Cluster, as.Replicas)
	}
	a.compact(w.Key)
}

// Observe reports that the cluster now shows visible pods of the workload;
// the assumed count drops accordingly.
func (a *Assumptions) Observe(key, cluster string, visible int32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e := a.byKey[key][cluster]; e != nil {
		e.visible = visible
		a.compact(key)
	}
}

// Refresh sets, for every workload and cluster with replicas still assumed,
// what the cluster shows now, as visible(key, cluster) reports it; it is
// Observe for all outstanding assumptions at once, and costs what is
// outstanding, not what the clusters hold.
func (a *Assumptions) Refresh(visible func(key, cluster string) int32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for key, byCluster := range a.byKey {
		for cluster, e := range byCluster {
			e.visible = visible(key, cluster)
		}
		a.compact(key)
	}
}

// Forget drops everything assumed for the workload.
func (a *Assumptions) Forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.byKey, key)
}

// Assumed returns how many replicas of the workload are assumed in the
// cluster.
func (a *Assumptions) Assumed(key, cluster string) int32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e := a.byKey[key][cluster]; e != nil {
		return e.assumed()
	}
	return 0
}

// compact drops the clusters with nothing assumed, and the workload when
// none is left. The caller holds a.mu.
func (a *Assumptions) compact(key string) {
	byCluster := a.byKey[key]
	for cluster, e := range byCluster {
		if e.assumed() == 0 {
			delete(byCluster, cluster)
		}
	}
	if len(byCluster) == 0 {
		delete(a.byKey, key)
	}
}

// ApplyAssumptions reserves the assumed replicas in the snapshot's free
// resources, workloads and clusters in name order so that the result is
// deterministic. Call it at most once per snapshot, before sharing it;
// assumptions for clusters the snapshot lacks are ignored.
func (s *Snapshot) ApplyAssumptions(a *Assumptions) {
	a.mu.Lock()
	defer a.mu.Unlock()
	touched := make(map[*ClusterInfo]bool)
	for _, key := range slices.Sorted(maps.Keys(a.byKey)) {
		byCluster := a.byKey[key]
		for _, name := range slices.Sorted(maps.Keys(byCluster)) {
			c := s.Cluster(name)
			e := byCluster[name]
			if c == nil || e.assumed() == 0 {
				continue
			}
			if len(c.Free) != len(c.Nodes) {
				continue // malformed: Free must be indexed like Nodes
			}
			c.own() // other snapshots may share its free resources
			if len(c.flags) != len(c.Nodes) {
				c.refresh() // built by hand rather than by NewSnapshot
			}
			c.reserve(int64(e.assumed()), &e.request, e.tolerations)
			touched[c] = true
		}
	}
	for c := range touched {
		c.refresh()
	}
}

// reserve takes n pods of req off the free resources of c's usable nodes,
// first fit in node order. Pods that fit nowhere still take what they can,
// so that an overcommitted cluster looks full rather than free.
func (c *ClusterInfo) reserve(n int64, req *Resources, tolerations []corev1.Toleration) {
	usable := func(j int) bool {
		return c.flags[j] == 0 || NodeUsable(&c.Nodes[j], tolerations)
	}
	for j := range c.Free {
		if n == 0 {
			return
		}
		if !usable(j) {
			continue
		}
		k := min(n, ReplicasOn(&c.Free[j], req))
		take(&c.Free[j], req, k)
		n -= k
	}
	for j := range c.Free {
		if n == 0 {
			return
		}
		if usable(j) {
			take(&c.Free[j], req, n)
			n = 0
		}
	}
}

// take subtracts k pods of req from free, never below zero.
func take(free *Resources, req *Resources, k int64) {
	free.addTimes(req, -k, true)
}
