package provision

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNextDrainStep(t *testing.T) {
	const timeout = 10 * time.Minute
	tests := []struct {
		name      string
		state     DrainState
		evictable int
		after     time.Duration
		want      DrainStep
	}{
		{name: "an empty node goes at once", state: DrainState{}, want: DrainRemove},
		{name: "pods left are evicted", state: DrainState{Pods: 3}, evictable: 3, after: time.Second, want: DrainEvict},
		{name: "a budget that refused is asked again", state: DrainState{Pods: 2, Blocked: 2}, evictable: 2, after: 5 * time.Minute, want: DrainEvict},
		{name: "evicted pods still terminating are waited for", state: DrainState{Pods: 1}, evictable: 0, after: time.Minute, want: DrainWait},
		{name: "a budget that refuses until the timeout keeps the node", state: DrainState{Pods: 2, Blocked: 2}, evictable: 2, after: timeout, want: DrainAbandon},
		{name: "emptied at the timeout still goes", state: DrainState{Pods: 0, Blocked: 0}, after: timeout, want: DrainRemove},
	}
	start := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.state.Started = start
			got := NextDrainStep(tc.state, tc.evictable, start.Add(tc.after), timeout)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NextDrainStep (-want +got):\n%s", diff)
			}
		})
	}
}
