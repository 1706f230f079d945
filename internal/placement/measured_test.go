package placement

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestChooseLatency(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	type got struct {
		RTT        time.Duration
		MeasuredAt time.Time
		OK         bool
	}
	for _, tc := range []struct {
		name                     string
		declared, measured       time.Duration
		hasDeclared, hasMeasured bool
		measuredAt               time.Time
		want                     got
	}{
		{name: "a fresh measurement wins", declared: 2 * time.Millisecond, hasDeclared: true, measured: 3 * time.Millisecond, hasMeasured: true, measuredAt: now.Add(-time.Minute),
			want: got{3 * time.Millisecond, now.Add(-time.Minute), true}},
		{name: "a measurement as old as the limit still counts", declared: 2 * time.Millisecond, hasDeclared: true, measured: 3 * time.Millisecond, hasMeasured: true, measuredAt: now.Add(-2 * time.Minute),
			want: got{3 * time.Millisecond, now.Add(-2 * time.Minute), true}},
		{name: "a stale measurement gives way to the declaration", declared: 2 * time.Millisecond, hasDeclared: true, measured: 3 * time.Millisecond, hasMeasured: true, measuredAt: now.Add(-3 * time.Minute),
			want: got{2 * time.Millisecond, time.Time{}, true}},
		{name: "a stale measurement and no declaration: unknown", measured: 3 * time.Millisecond, hasMeasured: true, measuredAt: now.Add(-3 * time.Minute),
			want: got{0, time.Time{}, false}},
		{name: "declared only", declared: 2 * time.Millisecond, hasDeclared: true,
			want: got{2 * time.Millisecond, time.Time{}, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rtt, at, ok := ChooseLatency(tc.declared, tc.hasDeclared, tc.measured, tc.measuredAt, tc.hasMeasured, now, 2*time.Minute)
			if diff := cmp.Diff(tc.want, got{rtt, at, ok}); diff != "" {
				t.Errorf("ChooseLatency (-want +got):\n%s", diff)
			}
		})
	}
}
