package decide_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
)

// TestJobCarbonShift checks that a job with a carbon shift waits for the
// start the carbon scheduler chooses among the grid zones of the clusters
// that can run it, keeps that start on later passes, and starts at once
// when there is nothing to gain or no room to wait.
func TestJobCarbonShift(t *testing.T) {
	framework, err := plugins.NewFramework()
	if err != nil {
		t.Fatal(err)
	}
	// home's zone A is dirty for three hours, then clean; near's zone B is
	// middling all day; far has no grid zone.
	var points []carbon.Point
	for h := range 24 {
		a := 400.0
		if h >= 3 {
			a = 100
		}
		at := t0.Add(time.Duration(h) * time.Hour)
		points = append(points,
			carbon.Point{Zone: "A", Time: at, GramsPerKWh: a, Kind: carbon.Forecast, Source: "test"},
			carbon.Point{Zone: "B", Time: at, GramsPerKWh: 300, Kind: carbon.Forecast, Source: "test"},
			carbon.Point{Zone: "F", Time: at, GramsPerKWh: 350, Kind: carbon.Forecast, Source: "test"})
	}
	zoned := func(c placement.Cluster, zone string) placement.Cluster {
		c.GridZone = zone
		return c
	}
	snap := func(intensities placement.CarbonIntensity) *placement.Snapshot {
		s := placement.NewSnapshot([]placement.Cluster{zoned(cluster("home", 2, 0), "A"), zoned(cluster("near", 2, 0), "B"), cluster("far", 3, 0)}, latency, nil)
		s.Carbon, s.CarbonAt = intensities, t0
		return s
	}
	green := carbon.NewIntensities(points)
	flat := carbon.NewIntensities(func() []carbon.Point {
		var out []carbon.Point
		for _, p := range points {
			p.GramsPerKWh = 200
			out = append(out, p)
		}
		return out
	}())
	none := map[string]decide.JobMember{"home": {Ready: true}, "near": {Ready: true}, "far": {Ready: true}}
	type outcome struct {
		Create       map[string]decide.JobShare
		Unplaced     int32
		RequeueAfter time.Duration
		PlannedStart time.Time
		Waiting      bool
		Decided      bool
	}
	tests := []struct {
		name    string
		shift   decide.JobShift
		planned time.Time
		snap    *placement.Snapshot
		now     time.Time
		want    outcome
		reason  string
	}{{
		name:  "the first pass chooses home's clean hours and waits for them; nothing counts as unplaced",
		shift: decide.JobShift{Deadline: t0.Add(8 * time.Hour), Duration: 2 * time.Hour}, snap: snap(green), now: t0,
		want:   outcome{RequeueAfter: 3 * time.Hour, PlannedStart: t0.Add(3 * time.Hour), Waiting: true, Decided: true},
		reason: "cluster/home",
	}, {
		name:  "a later pass keeps the chosen start, whatever the forecast says now",
		shift: decide.JobShift{Deadline: t0.Add(8 * time.Hour), Duration: 2 * time.Hour}, planned: t0.Add(3 * time.Hour), snap: snap(flat), now: t0.Add(time.Hour),
		want: outcome{RequeueAfter: 2 * time.Hour, PlannedStart: t0.Add(3 * time.Hour), Waiting: true},
	}, {
		name:  "at the chosen start the job is placed",
		shift: decide.JobShift{Deadline: t0.Add(8 * time.Hour), Duration: 2 * time.Hour}, planned: t0.Add(3 * time.Hour), snap: snap(green), now: t0.Add(3 * time.Hour),
		want: outcome{Create: map[string]decide.JobShare{"home": {Parallelism: 4, Completions: ptr.To[int32](4)}}, PlannedStart: t0.Add(3 * time.Hour)},
	}, {
		name:  "a deadline that leaves no room to wait starts the job at once",
		shift: decide.JobShift{Deadline: t0.Add(2 * time.Hour), Duration: 2 * time.Hour}, snap: snap(green), now: t0,
		want:   outcome{Create: map[string]decide.JobShare{"home": {Parallelism: 4, Completions: ptr.To[int32](4)}}, PlannedStart: t0, Decided: true},
		reason: "no room to wait",
	}, {
		name:  "without intensities the job starts at once",
		shift: decide.JobShift{Deadline: t0.Add(8 * time.Hour), Duration: 2 * time.Hour}, snap: snap(nil), now: t0,
		want:   outcome{Create: map[string]decide.JobShare{"home": {Parallelism: 4, Completions: ptr.To[int32](4)}}, PlannedStart: t0, Decided: true},
		reason: "no carbon intensities",
	}, {
		name:  "when no hour is greener the job starts at once",
		shift: decide.JobShift{Deadline: t0.Add(8 * time.Hour), Duration: 2 * time.Hour}, snap: snap(flat), now: t0,
		want:   outcome{Create: map[string]decide.JobShare{"home": {Parallelism: 4, Completions: ptr.To[int32](4)}}, PlannedStart: t0, Decided: true},
		reason: "cluster/",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			shift := tc.shift
			p, err := decide.Job(t.Context(), framework, decide.JobInput{
				Workload: batch(4), Completions: ptr.To[int32](4), Members: none, Snapshot: tc.snap, Now: tc.now,
				Timing: decide.Timing{PendingGrace: 30 * time.Second, UnplacedRetry: 10 * time.Second},
				Shift:  &shift, PlannedStart: tc.planned,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := outcome{Create: p.Create, Unplaced: p.Unplaced, RequeueAfter: p.RequeueAfter, PlannedStart: p.PlannedStart, Waiting: p.Waiting, Decided: p.StartReason != ""}
			if len(got.Create) == 0 {
				got.Create = nil
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Job (-want +got):\n%s", diff)
			}
			if tc.want.Waiting && tc.want.Decided {
				// Home's zone over the chosen hours (100 g/kWh) against
				// the best cluster at once (home, 400 g/kWh): a quarter.
				if p.ExpectedGrams <= 0 || math.Abs(p.BaselineGrams-4*p.ExpectedGrams) > 1e-9 {
					t.Errorf("ExpectedGrams %g, BaselineGrams %g: want a positive expectation and a baseline four times it", p.ExpectedGrams, p.BaselineGrams)
				}
			}
			if !strings.Contains(p.StartReason, tc.reason) {
				t.Errorf("StartReason %q, want it to contain %q", p.StartReason, tc.reason)
			}
		})
	}
}
