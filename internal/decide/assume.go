package decide

import (
	"maps"
	"slices"

	"github.com/meridian-dev/meridian/internal/placement"
)

// ObserveMembers tells the assumptions what every ready, connected member
// shows of w: Bound replicas visible, Replicas asked for (none when the
// member has no Deployment, which also drops what an earlier decision
// assumed there). Call it before the snapshot is built. After a restart the
// assumptions start empty; without this, replicas written before the
// restart but not yet scheduled would look like free room.
func ObserveMembers(a *placement.Assumptions, w *placement.Workload, members map[string]Member) {
	seen := &placement.Workload{Key: w.Key, PodRequests: w.PodRequests, Tolerations: w.Tolerations, Current: map[string]int32{}}
	asked := &placement.Decision{}
	for name, m := range members {
		if !m.Ready || !m.Connected {
			continue
		}
		seen.Current[name] = m.Bound
		if m.Exists {
			asked.Assignments = append(asked.Assignments, placement.Assignment{Cluster: name, Replicas: m.Replicas})
		}
	}
	a.Assume(seen, asked)
}

// Assume records the plan's target in the assumptions, so the next
// snapshot reserves the replicas the members do not show yet. The target,
// not the framework's decision: a pull-back changes where replicas go
// after the framework decided.
func (p *DeploymentPlan) Assume(a *placement.Assumptions) {
	d := &placement.Decision{Unplaced: p.Decision.Unplaced}
	for _, name := range slices.Sorted(maps.Keys(p.Target)) {
		if n := p.Target[name]; p.Held[name] == 0 && n > 0 {
			d.Assignments = append(d.Assignments, placement.Assignment{Cluster: name, Replicas: n})
		}
	}
	a.Assume(p.Workload, d)
}

// Assume records the new member Jobs in the assumptions, so the next
// snapshot reserves their pods until the members show them.
func (p *JobPlan) Assume(a *placement.Assumptions) {
	if p.Decision != nil {
		a.Assume(p.Workload, p.Decision)
	}
}
