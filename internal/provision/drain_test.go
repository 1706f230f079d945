package provision

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNextDrainStep(t *testing.T) {
	const timeout = 10 * time.Minute
	tests := []struct {
		name  string
		state DrainState
		after time.Duration
		want  DrainStep
	}{
		{name: "an empty node goes at once", state: DrainState{}, want: DrainRemove},
		{name: "pods left are evicted", state: DrainState{Pods: 3, Evictable: 3}, after: time.Second, want: DrainEvict},
		{name: "pods a budget refused are evicted again until just before the timeout", state: DrainState{Pods: 2, Evictable: 2}, after: timeout - time.Nanosecond, want: DrainEvict},
		{name: "evicted pods still terminating are waited for", state: DrainState{Pods: 1, Evictable: 0}, after: time.Minute, want: DrainWait},
		{name: "some terminating, some left to evict: evict", state: DrainState{Pods: 3, Evictable: 1}, after: time.Minute, want: DrainEvict},
		{name: "pods left at the timeout give the node back", state: DrainState{Pods: 2, Evictable: 2}, after: timeout, want: DrainAbandon},
		{name: "pods terminating at the timeout give the node back", state: DrainState{Pods: 1}, after: timeout, want: DrainAbandon},
		{name: "emptied at the timeout still goes", state: DrainState{}, after: timeout, want: DrainRemove},
	}
	start := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.state.Started = start
			got := NextDrainStep(tc.state, start.Add(tc.after), timeout)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NextDrainStep (-want +got):\n%s", diff)
			}
		})
	}
}
