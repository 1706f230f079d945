package decide

import (
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/reschedule"
)

// pullBackDue reports whether the workload's last pull-back is at least an
// interval old.
func pullBackDue(pb *PullBack, now time.Time) bool {
	return pb.Last.IsZero() || now.Sub(pb.Last) >= pb.Interval
}

// pullBack moves replicas that run away from the preferred clusters (on
// substitutes, burst clusters or the cloud) back to them where they have
// room now, with the re-scheduler's plan, into p.Target; the rollout then
// adds them at home before it removes them away. It returns how many
// replicas it moves.
func pullBack(p *DeploymentPlan, snap *placement.Snapshot, members map[string]Member) int32 {
	w := p.Workload
	if len(w.Locations) == 0 {
		return 0
	}
	var preferred []string
	for _, l := range w.Locations {
		if m, ok := members[l]; ok && m.Ready && !w.Full[l] {
			preferred = append(preferred, l)
		}
	}
	running := map[string]int32{}
	away := false
	for name, n := range p.Target {
		if p.Held[name] == 0 && n > 0 {
			running[name] = n
			away = away || !slices.Contains(w.Locations, name)
		}
	}
	if !away || len(preferred) == 0 {
		return 0
	}
	var clusters []reschedule.Cluster
	for _, c := range snap.Clusters {
		rc := reschedule.Cluster{Name: c.Name, Cloud: c.Cloud}
		for i := range c.Nodes {
			if n := &c.Nodes[i]; !n.Unschedulable && i < len(c.Free) {
				if _, bad := placement.UntoleratedTaint(n.Taints, nil); !bad {
					rc.Free = append(rc.Free, c.Free[i])
				}
			}
		}
		clusters = append(clusters, rc)
	}
	moves := reschedule.Plan(clusters, []reschedule.Workload{{Key: w.Key, Requests: w.PodRequests, Preferred: preferred, Running: running}}, snap.Latency)
	var moved int32
	for _, mv := range moves {
		p.Target[mv.To] += mv.Replicas
		p.Target[mv.From] -= mv.Replicas
		moved += mv.Replicas
	}
	return moved
}

// newAtHome is how many of the moved replicas the preferred members do not
// run yet: a move planned again before the last one finished is not
// counted twice.
func newAtHome(w *placement.Workload, moved int32, target map[string]int32, members map[string]Member) int32 {
	var grown int32
	for _, l := range w.Locations {
		if m, ok := members[l]; ok {
			grown += max(target[l]-m.Replicas, 0)
		}
	}
	return min(moved, grown)
}

// awayFromHome reports whether target runs replicas outside w's preferred
// locations.
func awayFromHome(w *placement.Workload, target map[string]int32) bool {
	if len(w.Locations) == 0 {
		return false
	}
	for name, n := range target {
		if n > 0 && !slices.Contains(w.Locations, name) {
			return true
		}
	}
	return false
}
