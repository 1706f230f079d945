package sim

import (
	"time"

	"github.com/meridian-dev/meridian/internal/sim/scenario"
)

// cutOff takes the member of o away from the control plane until o ends:
// the inventory reports it NotReady since now (decide.Member.Ready false,
// the snapshot's Cluster.Ready false), and no controller writes to it,
// while its nodes, pods and scheduler go on. Both ends re-queue every
// workload, as a change of a member's readiness does in the controllers.
func (w *world) cutOff(o scenario.Outage) {
	m := w.byName[o.Cluster]
	if m == nil || m.down {
		return // a cloud cluster that has not joined is not cut off
	}
	m.down, m.downSince = true, w.eng.Now()
	m.info.Ready = false
	w.version++
	w.event(EventMemberLost, "member %s stopped answering; its replicas are held for the failover grace (%v), then placed elsewhere", m.Name, w.timing.FailoverGrace)
	w.membersChanged()
	w.eng.After(o.For, func() { w.restore(m) })
}

// restore gives m back to the control plane: Ready again, its member
// objects as they were left, which the next passes read and correct.
func (w *world) restore(m *member) {
	if !m.down {
		return
	}
	m.down = false
	m.info.Ready = true
	w.version++
	w.event(EventMemberReturned, "member %s answers again after %v", m.Name, w.eng.Now()-m.downSince)
	w.membersChanged()
}

// notReadySince is when the control plane saw m go NotReady; zero when it
// is ready.
func (w *world) notReadySince(m *member) time.Time {
	if !m.down {
		return time.Time{}
	}
	return epoch.Add(m.downSince)
}
