package decide

// Progress is what a workload's last pass left undone that a member's
// freed room could help with.
type Progress struct {
	// Decided says a pass has placed the workload's current spec.
	Decided bool
	// Unplaced replicas found no cluster.
	Unplaced int32
	// Pending says replicas wait Unschedulable in a member.
	Pending bool
}

// WaitsForRoom reports whether a change of a member's capacity alone (pods
// or nodes come or go) concerns a workload: its spec has not been placed
// yet, some replicas found no cluster, or some are Pending in a member.
// Settled workloads look again at their resync; a change of a member's
// readiness, or a new member, concerns every workload.
func WaitsForRoom(p Progress) bool {
	return !p.Decided || p.Unplaced > 0 || p.Pending
}

// Progress is what the plan leaves undone, for WaitsForRoom: the members'
// Pending replicas are those of the ready members in the pass's input.
func (p *DeploymentPlan) Progress(members map[string]Member) Progress {
	out := Progress{Decided: true, Unplaced: p.Decision.Unplaced}
	for _, m := range members {
		if m.Ready && m.Pending > 0 {
			out.Pending = true
		}
	}
	return out
}
