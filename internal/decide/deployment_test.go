package decide_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
	"github.com/meridian-dev/meridian/internal/provision"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// cluster returns a ready cluster of n nodes of 2 CPU / 4 GiB, each with
// busy millicores requested.
func cluster(name string, n int, busy int64) placement.Cluster {
	c := placement.Cluster{Name: name, Ready: true}
	for i := range n {
		c.Nodes = append(c.Nodes, placement.Node{
			Name:        name + "-" + string(rune('a'+i)),
			Allocatable: placement.Resources{MilliCPU: 2000, Memory: 4 << 30, Pods: 110},
			Requested:   placement.Resources{MilliCPU: busy, Memory: 0, Pods: 0},
		})
	}
	return c
}

// home is a workload that prefers "home", may go to "near" (2 ms) and
// "far" (20 ms), 1 CPU a replica.
func home(replicas int32) *placement.Workload {
	return &placement.Workload{
		Key: "MultiClusterDeployment/default/web", Kind: placement.KindDeployment, Replicas: replicas,
		PodRequests: placement.Resources{MilliCPU: 1000, Memory: 1 << 30, Pods: 1},
		Policy:      placement.PolicyClusterAffinity, Locations: []string{"home"}, Substitution: true, Bursting: true,
	}
}

var latency = placement.Latency{
	"home": {"near": 2 * time.Millisecond, "far": 20 * time.Millisecond},
	"near": {"home": 2 * time.Millisecond, "far": 18 * time.Millisecond},
	"far":  {"home": 20 * time.Millisecond, "near": 18 * time.Millisecond},
}

// running is a ready, connected member whose Deployment runs n ready
// replicas written from the current spec.
func running(n int32) decide.Member {
	return decide.Member{Ready: true, Connected: true, Exists: n > 0, UpToDate: true, Replicas: n, ReadyReplicas: n, CaughtUp: true}
}

func empty() decide.Member { return decide.Member{Ready: true, Connected: true, CaughtUp: true} }

// outcome is the part of a plan the tests compare.
type outcome struct {
	Target       map[string]int32
	Held         map[string]int32
	FailedOver   map[string]int32
	Overdue      []string
	Unplaced     int32
	MovedBack    int32
	Considered   bool
	Grow, Shrink []string
	Waiting      bool
	Move         bool
	RequeueAfter time.Duration
}

func TestDeployment(t *testing.T) {
	framework, err := plugins.NewFramework()
	if err != nil {
		t.Fatal(err)
	}
	// Home has room for 4 replicas (2 nodes, 2 each), near for 4, far 6.
	snap := func(homeBusy int64) *placement.Snapshot {
		return placement.NewSnapshot([]placement.Cluster{cluster("home", 2, homeBusy), cluster("near", 2, 0), cluster("far", 3, 0)}, latency, nil)
	}
	timing := decide.Timing{PendingGrace: 30 * time.Second, FailoverGrace: time.Minute, Resync: time.Minute, MoveCheck: 2 * time.Second, UnplacedRetry: 10 * time.Second, TrafficInterval: 15 * time.Second}
	tests := []struct {
		name     string
		workload *placement.Workload
		members  map[string]decide.Member
		snap     *placement.Snapshot
		now      time.Time
		pullBack *decide.PullBack
		traffic  bool
		want     outcome
	}{{
		name:     "a workload that follows its traffic comes back at the traffic interval",
		workload: home(4),
		members:  map[string]decide.Member{"home": running(4), "near": empty(), "far": empty()},
		snap:     snap(0), now: t0, traffic: true,
		want: outcome{Target: map[string]int32{"home": 4}, RequeueAfter: 15 * time.Second},
	}, {
		name:     "a new workload goes to its preferred cluster",
		workload: home(4),
		members:  map[string]decide.Member{"home": empty(), "near": empty(), "far": empty()},
		snap:     snap(0), now: t0,
		want: outcome{Target: map[string]int32{"home": 4}, Grow: []string{"home"}, RequeueAfter: time.Minute},
	}, {
		name:     "a settled workload stays where it runs",
		workload: home(4),
		members:  map[string]decide.Member{"home": running(2), "near": running(2), "far": empty()},
		snap:     snap(1000), now: t0,
		want: outcome{Target: map[string]int32{"home": 2, "near": 2}, RequeueAfter: time.Minute},
	}, {
		name:     "pending replicas within the grace period stay, and the pass comes back when it ends",
		workload: home(4),
		members: map[string]decide.Member{
			"home": {Ready: true, Connected: true, Exists: true, UpToDate: true, Replicas: 4, ReadyReplicas: 2, Pending: 2, PendingSince: t0, CaughtUp: true},
			"near": empty(), "far": empty(),
		},
		snap: snap(2000), now: t0.Add(10 * time.Second),
		want: outcome{Target: map[string]int32{"home": 4}, RequeueAfter: 21 * time.Second},
	}, {
		name:     "pending replicas beyond the grace period overflow to the nearest cluster, added before removed",
		workload: home(4),
		members: map[string]decide.Member{
			"home": {Ready: true, Connected: true, Exists: true, UpToDate: true, Replicas: 4, ReadyReplicas: 2, Pending: 2, PendingSince: t0, CaughtUp: true},
			"near": empty(), "far": empty(),
		},
		snap: snap(2000), now: t0.Add(30 * time.Second),
		want: outcome{
			Target: map[string]int32{"home": 2, "near": 2}, Overdue: []string{"home"},
			Grow: []string{"near"}, Shrink: []string{"home"}, Move: true, RequeueAfter: time.Minute,
		},
	}, {
		name:     "pending replicas of a member that has not caught up with the last write are not moved",
		workload: home(4),
		members: map[string]decide.Member{
			"home": {Ready: true, Connected: true, Exists: true, UpToDate: true, Replicas: 4, ReadyReplicas: 2, Pending: 2, PendingSince: t0},
			"near": empty(), "far": empty(),
		},
		snap: snap(2000), now: t0.Add(time.Hour),
		want: outcome{Target: map[string]int32{"home": 4}, RequeueAfter: time.Second},
	}, {
		name:     "a member not ready keeps its replicas within the failover grace period",
		workload: home(4),
		members: map[string]decide.Member{
			"home": {Connected: true, Exists: true, UpToDate: true, Replicas: 4, ReadyReplicas: 4, NotReadySince: t0},
			"near": empty(), "far": empty(),
		},
		snap: snap(0), now: t0.Add(20 * time.Second),
		want: outcome{Target: map[string]int32{"home": 4}, Held: map[string]int32{"home": 4}, RequeueAfter: 41 * time.Second},
	}, {
		name:     "a member not ready beyond the failover grace period has its replicas placed elsewhere",
		workload: home(4),
		members: map[string]decide.Member{
			"home": {Connected: true, Exists: true, UpToDate: true, Replicas: 4, ReadyReplicas: 4, NotReadySince: t0},
			"near": empty(), "far": empty(),
		},
		snap: placement.NewSnapshot([]placement.Cluster{{Name: "home"}, cluster("near", 2, 0), cluster("far", 3, 0)}, latency, nil),
		now:  t0.Add(time.Minute),
		want: outcome{Target: map[string]int32{"near": 4}, FailedOver: map[string]int32{"home": 4}, Grow: []string{"near"}, RequeueAfter: time.Minute},
	}, {
		name:     "a scale-down keeps the replicas at home and is not a move",
		workload: home(2),
		members:  map[string]decide.Member{"home": running(2), "near": running(2), "far": running(2)},
		snap:     snap(1000), now: t0,
		want: outcome{Target: map[string]int32{"home": 2}, Shrink: []string{"far", "near"}, Move: true, RequeueAfter: time.Minute},
	}, {
		name:     "replicas that fit nowhere are retried soon",
		workload: home(20),
		members:  map[string]decide.Member{"home": empty(), "near": empty(), "far": empty()},
		snap:     snap(0), now: t0,
		want: outcome{
			Target: map[string]int32{"home": 4, "near": 4, "far": 6}, Unplaced: 6,
			Grow: []string{"far", "home", "near"}, RequeueAfter: 10 * time.Second,
		},
	}, {
		name:     "with a re-scheduler, replicas away come home when there is room, added there first",
		workload: home(4),
		members:  map[string]decide.Member{"home": running(2), "near": running(2), "far": empty()},
		snap:     snap(0), now: t0, pullBack: &decide.PullBack{Interval: time.Minute},
		want: outcome{
			Target: map[string]int32{"home": 4, "near": 0}, MovedBack: 2, Considered: true,
			Grow: []string{"home"}, Waiting: true, RequeueAfter: 2 * time.Second,
		},
	}, {
		name: "a policy that places afresh on every pass is not pulled back: it would undo the move",
		workload: func() *placement.Workload {
			w := home(4)
			w.Policy = placement.PolicyTrafficAware
			return w
		}(),
		members: map[string]decide.Member{"home": running(2), "near": running(2), "far": empty()},
		snap:    placement.NewSnapshot([]placement.Cluster{cluster("home", 2, 0), cluster("near", 2, 0), cluster("far", 3, 0)}, latency, map[string]map[string]float64{"MultiClusterDeployment/default/web": {"near": 10}}),
		now:     t0, pullBack: &decide.PullBack{Interval: time.Minute},
		want: outcome{Target: map[string]int32{"near": 4}, Grow: []string{"near"}, Waiting: true, RequeueAfter: 2 * time.Second},
	}, {
		name:     "a pull-back is considered at most once per interval, and the pass comes back at that pace",
		workload: home(4),
		members:  map[string]decide.Member{"home": running(2), "near": running(2), "far": empty()},
		snap:     snap(0), now: t0.Add(30 * time.Second), pullBack: &decide.PullBack{Interval: time.Minute, Last: t0},
		want: outcome{Target: map[string]int32{"home": 2, "near": 2}, RequeueAfter: time.Minute},
	}, {
		name:     "once the new replicas at home are ready, the ones away are removed",
		workload: home(4),
		members:  map[string]decide.Member{"home": running(4), "near": running(2), "far": empty()},
		snap:     snap(0), now: t0.Add(2 * time.Second), pullBack: &decide.PullBack{Interval: time.Minute, Last: t0},
		want: outcome{Target: map[string]int32{"home": 4}, Shrink: []string{"near"}, Move: true, RequeueAfter: time.Minute},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := decide.Deployment(t.Context(), framework, decide.DeploymentInput{
				Workload: tc.workload, Members: tc.members, Snapshot: tc.snap, Now: tc.now, Timing: timing, PullBack: tc.pullBack,
				FollowsTraffic: tc.traffic,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := outcome{
				Target: p.Target, Unplaced: p.Decision.Unplaced, MovedBack: p.MovedBack, Considered: p.PullBackConsidered,
				Overdue: p.Overdue, Grow: p.Rollout.Grow, Shrink: p.Rollout.Shrink, Waiting: p.Rollout.Waiting, Move: p.Rollout.Move,
				RequeueAfter: p.RequeueAfter,
			}
			if len(p.Held) > 0 {
				got.Held = p.Held
			}
			if len(p.FailedOver) > 0 {
				got.FailedOver = p.FailedOver
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Deployment() (-want +got):\n%s", diff)
			}
			if got, want := p.AfterWrite(true), min(tc.want.RequeueAfter, timing.MoveCheck); got != want {
				t.Errorf("AfterWrite(budget held) = %v, want %v", got, want)
			}
			if got := p.AfterWrite(false); got != tc.want.RequeueAfter {
				t.Errorf("AfterWrite(nothing held) = %v, want RequeueAfter %v", got, tc.want.RequeueAfter)
			}
		})
	}
}

func TestDeploymentTellsAnInvalidSpecFromAFailure(t *testing.T) {
	framework, err := plugins.NewFramework()
	if err != nil {
		t.Fatal(err)
	}
	snap := placement.NewSnapshot([]placement.Cluster{cluster("home", 1, 0)}, latency, nil)
	bad := home(1)
	bad.Policy = "Cheapest"
	_, err = decide.Deployment(t.Context(), framework, decide.DeploymentInput{Workload: bad, Snapshot: snap, Now: t0, Timing: decide.DefaultTiming})
	if !decide.InvalidSpec(err) {
		t.Errorf("unknown policy: InvalidSpec(%v) = false, want true", err)
	}
	cancelled, cancel := contextWithCancel(t)
	cancel()
	_, err = decide.Deployment(cancelled, framework, decide.DeploymentInput{Workload: home(1), Snapshot: snap, Now: t0, Timing: decide.DefaultTiming})
	if err == nil || decide.InvalidSpec(err) {
		t.Errorf("cancelled context: error %v, want one that is not an invalid spec", err)
	}
}

// TestDeploymentLeavesASettledCloud checks the re-scheduler's moves out of
// a cloud cluster whose provisioner forecasts a settled demand: every
// member cluster with room takes replicas, home first, as the workload's
// policy orders them; while the demand rises only home does.
func TestDeploymentLeavesASettledCloud(t *testing.T) {
	framework, err := plugins.NewFramework()
	if err != nil {
		t.Fatal(err)
	}
	withCloud := func(homeBusy, farBusy int64) *placement.Snapshot {
		cloud := cluster("cloud", 2, 1500)
		cloud.Cloud = true
		lat := placement.Latency{
			"home": {"near": 2 * time.Millisecond, "far": 20 * time.Millisecond, "cloud": 5 * time.Millisecond},
			"near": {"far": 18 * time.Millisecond, "cloud": 4 * time.Millisecond},
			"far":  {"cloud": 15 * time.Millisecond},
		}
		// near has room for 1 replica; home and far as busy says.
		return placement.NewSnapshot([]placement.Cluster{cluster("home", 1, homeBusy), cluster("near", 1, 1000), cluster("far", 1, farBusy), cloud}, lat, nil)
	}
	members := map[string]decide.Member{"home": running(2), "near": empty(), "far": empty(), "cloud": running(3)}
	settled := map[string]bool{"cloud": true}
	tests := []struct {
		name      string
		workload  *placement.Workload
		snap      *placement.Snapshot
		leave     map[string]bool
		want      map[string]int32
		movedBack int32
		leftCloud int32
	}{{
		name:     "settled: the cloud's replicas go to every member with room, nearest first",
		workload: home(5), snap: withCloud(2000, 0), leave: settled,
		want: map[string]int32{"home": 2, "near": 1, "far": 2, "cloud": 0}, leftCloud: 3,
	}, {
		name:     "settled: home first, when it has room",
		workload: home(5), snap: withCloud(0, 0), leave: settled,
		want: map[string]int32{"home": 4, "near": 1, "cloud": 0}, movedBack: 2, leftCloud: 3,
	}, {
		name:     "settled: what fits no member stays in the cloud",
		workload: home(5), snap: withCloud(2000, 2000), leave: settled,
		want: map[string]int32{"home": 2, "near": 1, "cloud": 2}, leftCloud: 1,
	}, {
		name:     "rising: only home takes replicas back, and it is full",
		workload: home(5), snap: withCloud(2000, 0),
		want: map[string]int32{"home": 2, "cloud": 3},
	}, {
		name:     "rising: home takes what it has room for",
		workload: home(5), snap: withCloud(0, 0),
		want: map[string]int32{"home": 4, "cloud": 1}, movedBack: 2,
	}, {
		name: "a cloud cluster the workload prefers is home: its replicas stay",
		workload: func() *placement.Workload {
			w := home(5)
			w.Locations = []string{"home", "cloud"}
			return w
		}(),
		snap: withCloud(2000, 0), leave: settled,
		want: map[string]int32{"home": 2, "cloud": 3},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := decide.Deployment(t.Context(), framework, decide.DeploymentInput{
				Workload: tc.workload, Members: members, Snapshot: tc.snap, Now: t0, Timing: decide.DefaultTiming,
				PullBack: &decide.PullBack{Interval: time.Minute, LeaveCloud: tc.leave},
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p.Target); diff != "" {
				t.Errorf("Target (-want +got):\n%s", diff)
			}
			if p.MovedBack != tc.movedBack || p.LeftCloud != tc.leftCloud {
				t.Errorf("MovedBack, LeftCloud = %d, %d, want %d, %d", p.MovedBack, p.LeftCloud, tc.movedBack, tc.leftCloud)
			}
		})
	}
}

func TestSettledClouds(t *testing.T) {
	tests := []struct {
		name   string
		clouds []decide.CloudTrend
		want   map[string]bool
	}{
		{name: "no cloud"},
		{name: "joined and settled", clouds: []decide.CloudTrend{{Cluster: "aws", Ready: true, Trend: provision.Settled}},
			want: map[string]bool{"aws": true}},
		{name: "settled but still being provisioned", clouds: []decide.CloudTrend{{Cluster: "aws", Trend: provision.Settled}}},
		{name: "rising", clouds: []decide.CloudTrend{{Cluster: "aws", Ready: true, Trend: provision.Rising}}},
		{name: "no forecast (reactive mode, or warming up)", clouds: []decide.CloudTrend{{Cluster: "aws", Ready: true}}},
		{name: "one of two", clouds: []decide.CloudTrend{
			{Cluster: "aws", Ready: true, Trend: provision.Rising}, {Cluster: "gcp", Ready: true, Trend: provision.Settled},
		}, want: map[string]bool{"gcp": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, decide.SettledClouds(tt.clouds)); diff != "" {
				t.Errorf("SettledClouds (-want +got):\n%s", diff)
			}
		})
	}
}
