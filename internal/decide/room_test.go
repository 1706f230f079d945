package decide_test

import (
	"testing"
	"time"

	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/placement"
)

func TestWaitsForRoom(t *testing.T) {
	tests := []struct {
		name string
		p    decide.Progress
		want bool
	}{
		{"never placed", decide.Progress{}, true},
		{"placed and settled", decide.Progress{Decided: true}, false},
		{"replicas found no cluster", decide.Progress{Decided: true, Unplaced: 2}, true},
		{"replicas Pending in a member", decide.Progress{Decided: true, Pending: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decide.WaitsForRoom(tt.p); got != tt.want {
				t.Errorf("WaitsForRoom(%+v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

// TestDeploymentPlanProgress counts Pending replicas of ready members only:
// a member that is not ready holds its replicas whatever they show.
func TestDeploymentPlanProgress(t *testing.T) {
	p := &decide.DeploymentPlan{Decision: &placement.Decision{Unplaced: 1}}
	since := time.Unix(0, 0)
	tests := []struct {
		name    string
		members map[string]decide.Member
		want    decide.Progress
	}{
		{"nothing Pending", map[string]decide.Member{"lille": {Ready: true, Replicas: 3}}, decide.Progress{Decided: true, Unplaced: 1}},
		{"Pending in a ready member", map[string]decide.Member{"lille": {Ready: true, Pending: 2, PendingSince: since}}, decide.Progress{Decided: true, Unplaced: 1, Pending: true}},
		{"Pending in a member not ready", map[string]decide.Member{"lille": {Pending: 2, PendingSince: since}}, decide.Progress{Decided: true, Unplaced: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Progress(tt.members); got != tt.want {
				t.Errorf("Progress() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
