package decide

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/provision"
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

// CloudTrend is what the re-scheduler reads of one cloud cluster's
// provisioner: the CloudProvisioner's phase and status.demandTrend in the
// controller, the simulated cloud and its provisioner's last decision in
// the simulator.
type CloudTrend struct {
	// Cluster is the cloud cluster's name.
	Cluster string
	// Ready is true once the cloud cluster is joined.
	Ready bool
	// Trend is the provisioner's forecast, empty when it forecasts nothing.
	Trend provision.Trend
}

// SettledClouds names the cloud clusters whose replicas may leave for any
// member cluster with room (PullBack.LeaveCloud): those joined whose
// provisioner forecasts a settled demand. It is nil when there is none.
func SettledClouds(clouds []CloudTrend) map[string]bool {
	var out map[string]bool
	for _, c := range clouds {
		if c.Ready && c.Trend == provision.Settled {
			if out == nil {
				out = map[string]bool{}
			}
			out[c.Cluster] = true
		}
	}
	return out
}

// leaveCloud moves the replicas that run in the cloud clusters of leave
// (whose provisioners forecast a settled demand) to the member clusters,
// home first, where they have room now: the workload's own policy places
// them again, as if they were new, with those cloud clusters closed to
// them. The rollout adds them in the members before it removes them in the
// cloud, whose emptied nodes the provisioner then removes. It returns how
// many replicas it moves; those that fit no member stay. While the demand
// rises, the same room in the members is what bursts land in at no cost,
// so the replicas stay in the cloud and only go home (pullBack). A cloud
// cluster the workload prefers is home, and is left alone.
func leaveCloud(ctx context.Context, placer Placer, p *DeploymentPlan, snap *placement.Snapshot, leave map[string]bool) (int32, error) {
	w := p.Workload
	var out int32
	var from []string
	again := *w
	again.Current = map[string]int32{}
	again.Full = maps.Clone(w.Full)
	if again.Full == nil {
		again.Full = map[string]bool{}
	}
	for name, n := range p.Target {
		n -= p.Held[name]
		if leave[name] && n > 0 && !slices.Contains(w.Locations, name) {
			out += n
			from = append(from, name)
			again.Full[name] = true
			continue
		}
		again.Current[name] = n
	}
	if out == 0 {
		return 0, nil
	}
	d, err := placer.Place(ctx, snap, &again)
	if err != nil {
		return 0, fmt.Errorf("failed to place the replicas of settled cloud clusters again: %w", err)
	}
	var moved int32
	for _, a := range d.Assignments {
		if grown := min(a.Replicas-again.Current[a.Cluster], out-moved); grown > 0 && !again.Full[a.Cluster] {
			p.Target[a.Cluster] += grown
			moved += grown
		}
	}
	left := moved
	slices.Sort(from)
	for _, name := range from {
		take := min(p.Target[name]-p.Held[name], left)
		p.Target[name] -= take
		left -= take
	}
	return moved, nil
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
