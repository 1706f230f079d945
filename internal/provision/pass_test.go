package provision

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/placement"
)

func TestPhaseOf(t *testing.T) {
	tests := []struct {
		wasReady, reachable bool
		want                Phase
	}{
		{wasReady: false, reachable: false, want: Provisioning},
		{wasReady: false, reachable: true, want: Ready},
		{wasReady: true, reachable: true, want: Ready},
		{wasReady: true, reachable: false, want: Unreachable},
	}
	for _, tc := range tests {
		if got := PhaseOf(tc.wasReady, tc.reachable); got != tc.want {
			t.Errorf("PhaseOf(wasReady %v, reachable %v) = %s, want %s", tc.wasReady, tc.reachable, got, tc.want)
		}
	}
}

// TestPass checks the pass around the decision, which the controller and
// the simulator both run: drains step first and whatever the members do,
// nothing is decided while the members settle, and the next pass comes
// sooner while the cloud cluster is created.
func TestPass(t *testing.T) {
	now := start.Add(time.Hour)
	// Two replicas of 1 CPU fit nowhere: the provisioner asks for a cloud
	// cluster once it decides.
	short := Input{Now: now, Workloads: []Workload{{Requests: cpu(1000), Asked: 2, Unplaced: 2, Overflows: true}},
		Members: []Member{{Ready: true, Nodes: []placement.Node{{Name: "m", Allocatable: placement.Resources{MilliCPU: 500, Memory: gi, Pods: 110}}}}}}
	unreachable := short
	unreachable.Cloud = &Cloud{Phase: Unreachable}
	ready := short
	ready.Workloads = []Workload{{Requests: cpu(1000), Asked: 2, Overflows: true}}
	ready.Cloud = &Cloud{Phase: Ready, Nodes: []NodeState{node("c-0", 2000, true, cpu(1000), cpu(1000))}, Workloads: 1}
	drains := map[string]DrainState{
		"empty":   {Started: now.Add(-time.Minute)},
		"busy":    {Started: now.Add(-time.Minute), Pods: 2, Evictable: 2},
		"waiting": {Started: now.Add(-time.Minute), Pods: 1},
		"stuck":   {Started: now.Add(-DrainTimeout), Pods: 1, Evictable: 1},
	}
	type outcome struct {
		Steps        map[string]DrainStep
		Drained      Action
		Decided      bool
		Action       Action
		RequeueAfter time.Duration
	}
	tests := []struct {
		name string
		in   PassInput
		want outcome
	}{{
		name: "settled: a cloud cluster is asked for, and looked at again soon",
		in:   PassInput{Input: short, MembersChanged: now.Add(-time.Minute)},
		want: outcome{Steps: map[string]DrainStep{}, Drained: None, Decided: true, Action: ProvisionCluster, RequeueAfter: Recheck},
	}, {
		name: "members changed 2 s ago: nothing decided until they settle",
		in:   PassInput{Input: short, MembersChanged: now.Add(-2 * time.Second)},
		want: outcome{Steps: map[string]DrainStep{}, Drained: None, Action: None, RequeueAfter: SettleTime - 2*time.Second},
	}, {
		name: "drains step while the members settle",
		in:   PassInput{Input: ready, Drains: drains, MembersChanged: now},
		want: outcome{
			Steps:   map[string]DrainStep{"empty": DrainRemove, "busy": DrainEvict, "waiting": DrainWait, "stuck": DrainAbandon},
			Drained: RemoveNodes, Action: None, RequeueAfter: SettleTime,
		},
	}, {
		name: "an unreachable cloud cluster: no drain steps, nothing decided, looked at again soon",
		in:   PassInput{Input: unreachable, Drains: drains},
		want: outcome{Steps: map[string]DrainStep{}, Drained: None, Decided: true, Action: None, RequeueAfter: Recheck},
	}, {
		name: "a ready cloud cluster that is needed: the period",
		in:   PassInput{Input: ready},
		want: outcome{Steps: map[string]DrainStep{}, Drained: None, Decided: true, Action: None, RequeueAfter: 30 * time.Second},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(config(Reactive))
			pass := p.Pass(tc.in)
			got := outcome{Steps: pass.DrainSteps, Drained: pass.Drained.Action, Decided: pass.Decided, Action: pass.Decision.Action, RequeueAfter: pass.RequeueAfter}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Pass() (-want +got):\n%s\n%s", diff, pass.Decision.Reason)
			}
			if pass.Drained.Action == RemoveNodes {
				if diff := cmp.Diff([]string{"empty"}, pass.Drained.Remove); diff != "" {
					t.Errorf("nodes removed as drained (-want +got):\n%s", diff)
				}
			}
		})
	}
}
