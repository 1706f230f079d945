package decide_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
)

func batch(parallelism int32) *placement.Workload {
	w := home(parallelism)
	w.Key, w.Kind = "MultiClusterJob/default/batch", placement.KindJob
	return w
}

type jobOutcome struct {
	Create       map[string]decide.JobShare
	Delete       []string
	Overdue      []string
	Unplaced     int32
	RequeueAfter time.Duration
}

func TestJob(t *testing.T) {
	framework, err := plugins.NewFramework()
	if err != nil {
		t.Fatal(err)
	}
	// Home has room for 4 pods, near for 4, far for 6.
	snap := func(homeBusy int64) *placement.Snapshot {
		return placement.NewSnapshot([]placement.Cluster{cluster("home", 2, homeBusy), cluster("near", 2, 0), cluster("far", 3, 0)}, latency, nil)
	}
	timing := decide.Timing{PendingGrace: 30 * time.Second, UnplacedRetry: 10 * time.Second}
	none := map[string]decide.JobMember{"home": {Ready: true}, "near": {Ready: true}, "far": {Ready: true}}
	tests := []struct {
		name        string
		workload    *placement.Workload
		completions *int32
		members     map[string]decide.JobMember
		snap        *placement.Snapshot
		now         time.Time
		want        jobOutcome
	}{{
		name:     "a new job's pods go to its preferred cluster, each with its completions",
		workload: batch(4), completions: ptr.To[int32](8), members: none, snap: snap(0), now: t0,
		want: jobOutcome{Create: map[string]decide.JobShare{"home": {Parallelism: 4, Completions: ptr.To[int32](8)}}},
	}, {
		name:     "a job without completions is shared by parallelism alone",
		workload: batch(4), members: none, snap: snap(0), now: t0,
		want: jobOutcome{Create: map[string]decide.JobShare{"home": {Parallelism: 4}}},
	}, {
		name:     "pods that fit nowhere keep their share of the completions for later, and are retried",
		workload: batch(20), completions: ptr.To[int32](20), members: none, snap: snap(0), now: t0,
		want: jobOutcome{
			Create: map[string]decide.JobShare{
				"home": {Parallelism: 4, Completions: ptr.To[int32](4)}, "near": {Parallelism: 4, Completions: ptr.To[int32](4)},
				"far": {Parallelism: 6, Completions: ptr.To[int32](6)},
			},
			Unplaced: 6, RequeueAfter: 10 * time.Second,
		},
	}, {
		name:     "later, the pods still unplaced get new member Jobs where there is none, with the completions left",
		workload: batch(6), completions: ptr.To[int32](6),
		members: map[string]decide.JobMember{
			"home": {Ready: true, Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Running: 4},
			"near": {Ready: true}, "far": {Ready: true},
		},
		snap: snap(0), now: t0,
		want: jobOutcome{Create: map[string]decide.JobShare{"near": {Parallelism: 2, Completions: ptr.To[int32](2)}}},
	}, {
		name:     "a placed job waits",
		workload: batch(4), completions: ptr.To[int32](4),
		members: map[string]decide.JobMember{
			"home": {Ready: true, Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Running: 2, Succeeded: 2},
			"near": {Ready: true}, "far": {Ready: true},
		},
		snap: snap(0), now: t0,
		want: jobOutcome{Create: map[string]decide.JobShare{}},
	}, {
		name:     "pods pending within the grace period wait, and the pass comes back when it ends",
		workload: batch(4), completions: ptr.To[int32](4),
		members: map[string]decide.JobMember{
			"home": {Ready: true, Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Pending: 4, PendingSince: t0},
			"near": {Ready: true}, "far": {Ready: true},
		},
		snap: snap(2000), now: t0.Add(10 * time.Second),
		want: jobOutcome{Create: map[string]decide.JobShare{}, RequeueAfter: 21 * time.Second},
	}, {
		name:     "a member Job whose pods never ran beyond the grace period is moved whole",
		workload: batch(4), completions: ptr.To[int32](4),
		members: map[string]decide.JobMember{
			"home": {Ready: true, Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Pending: 4, PendingSince: t0},
			"near": {Ready: true}, "far": {Ready: true},
		},
		snap: snap(2000), now: t0.Add(30 * time.Second),
		want: jobOutcome{
			Create: map[string]decide.JobShare{"near": {Parallelism: 4, Completions: ptr.To[int32](4)}},
			Delete: []string{"home"}, Overdue: []string{"home"},
		},
	}, {
		name:     "a member that is not ready keeps its Job, whatever it showed last",
		workload: batch(4), completions: ptr.To[int32](4),
		members: map[string]decide.JobMember{
			"home": {Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Pending: 4, PendingSince: t0},
			"near": {Ready: true}, "far": {Ready: true},
		},
		snap: snap(2000), now: t0.Add(time.Hour),
		want: jobOutcome{Create: map[string]decide.JobShare{}},
	}, {
		name:     "a member Job that ran pods keeps its share even when others stay pending",
		workload: batch(4), completions: ptr.To[int32](4),
		members: map[string]decide.JobMember{
			"home": {Ready: true, Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Running: 2, Pending: 2, PendingSince: t0},
			"near": {Ready: true}, "far": {Ready: true},
		},
		snap: snap(2000), now: t0.Add(time.Minute),
		want: jobOutcome{Create: map[string]decide.JobShare{}, Overdue: []string{"home"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := decide.Job(t.Context(), framework, decide.JobInput{
				Workload: tc.workload, Completions: tc.completions, Members: tc.members, Snapshot: tc.snap, Now: tc.now, Timing: timing,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := jobOutcome{Create: p.Create, Delete: p.Delete, Overdue: p.Overdue, Unplaced: p.Unplaced, RequeueAfter: p.RequeueAfter}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Job() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobStarted(t *testing.T) {
	tests := []struct {
		name    string
		members map[string]decide.JobMember
		want    bool
	}{
		{name: "no member Job yet", members: map[string]decide.JobMember{"home": {Ready: true}}, want: false},
		{name: "pods still Pending", members: map[string]decide.JobMember{
			"home": {Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Running: 2, Pending: 2},
		}, want: false},
		{name: "every pod runs", members: map[string]decide.JobMember{
			"home": {Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Running: 4}, "near": {},
		}, want: true},
		{name: "fewer completions left than parallel pods", members: map[string]decide.JobMember{
			"home": {Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Succeeded: 3, Running: 1},
		}, want: true},
		{name: "a finished member Job", members: map[string]decide.JobMember{
			"home": {Exists: true, Parallelism: 4, Completions: ptr.To[int32](4), Finished: true},
		}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, decide.JobStarted(tc.members)); diff != "" {
				t.Errorf("JobStarted() (-want +got):\n%s", diff)
			}
		})
	}
}
