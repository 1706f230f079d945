package decide

import (
	"time"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// EmissionsTiming says when a finished CloudVM's emissions are accounted.
// Intensity services publish an hour's measured figure some time after it
// ends (Electricity Maps revises its estimate into the measured value within
// hours), so accounting waits Settle after the run, reads again every Retry
// while some hour is not measured, and gives up waiting GiveUp after the run,
// recording what it has and saying so.
type EmissionsTiming struct {
	Settle, Retry, GiveUp time.Duration
}

// DefaultEmissionsTiming is the CloudVM controller's accounting timing
// unless configured.
var DefaultEmissionsTiming = EmissionsTiming{Settle: 2 * time.Hour, Retry: time.Hour, GiveUp: 48 * time.Hour}

// EmissionsDue decides, before anything is read, whether a CloudVM's
// emissions are to be accounted in this pass: the run completed at end, no
// figure is recorded yet, and Settle has passed. When not yet, it returns how
// long to wait; zero when nothing is ever due (not completed, or recorded).
func EmissionsDue(completed, recorded bool, end, now time.Time, t EmissionsTiming) (bool, time.Duration) {
	if !completed || recorded {
		return false, 0
	}
	if wait := end.Add(t.Settle).Sub(now); wait > 0 {
		return false, wait
	}
	return true, 0
}

// EmissionsRecord decides, on the figure read, whether to record it now: when
// every hour is measured, or when GiveUp has passed since the run's end (an
// estimate then, and Basis says so). Otherwise it returns when to read again.
func EmissionsRecord(r carbon.Realised, end, now time.Time, t EmissionsTiming) (bool, time.Duration) {
	if r.Complete() || !now.Before(end.Add(t.GiveUp)) {
		return true, 0
	}
	return false, min(t.Retry, end.Add(t.GiveUp).Sub(now))
}
