package decide_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/decide"
)

func TestEmissions(t *testing.T) {
	end := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	timing := decide.DefaultEmissionsTiming
	measured := carbon.Realised{Hours: 3, Known: 3, Kinds: map[carbon.Kind]int{carbon.Measured: 3}}
	estimated := carbon.Realised{Hours: 3, Known: 3, Kinds: map[carbon.Kind]int{carbon.Measured: 2, carbon.Estimated: 1}}
	missing := carbon.Realised{Hours: 3, Known: 2, Kinds: map[carbon.Kind]int{carbon.Measured: 2}}
	type result struct {
		Go    bool
		After time.Duration
	}
	tests := []struct {
		name      string
		completed bool
		recorded  bool
		now       time.Time
		realised  *carbon.Realised
		want      result
	}{
		{name: "not completed: nothing to account, nothing to wait for", now: end.Add(time.Hour), want: result{}},
		{name: "recorded: never again", completed: true, recorded: true, now: end.Add(3 * time.Hour), want: result{}},
		{name: "completed, settling: wait until end plus Settle", completed: true, now: end.Add(30 * time.Minute), want: result{After: 90 * time.Minute}},
		{name: "completed and settled: read", completed: true, now: end.Add(2 * time.Hour), want: result{Go: true}},
		{name: "every hour measured: record", completed: true, now: end.Add(2 * time.Hour), realised: &measured, want: result{Go: true}},
		{name: "an hour estimated: read again in Retry", completed: true, now: end.Add(2 * time.Hour), realised: &estimated, want: result{After: time.Hour}},
		{name: "an hour missing near the give-up: read again at the give-up", completed: true, now: end.Add(47*time.Hour + 30*time.Minute), realised: &missing, want: result{After: 30 * time.Minute}},
		{name: "an hour missing at the give-up: record the estimate", completed: true, now: end.Add(48 * time.Hour), realised: &missing, want: result{Go: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got result
			if tc.realised == nil {
				got.Go, got.After = decide.EmissionsDue(tc.completed, tc.recorded, end, tc.now, timing)
			} else {
				got.Go, got.After = decide.EmissionsRecord(*tc.realised, end, tc.now, timing)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
