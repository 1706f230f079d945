package decide

import "time"

// TokenRenewal returns when a member credential issued at issued and
// expiring at expires is renewed: once renewBefore is left of it, or, when
// renewBefore is zero or not shorter than its lifetime, once a third of its
// lifetime is left, which leaves two more tries at the heartbeat interval
// before it expires even for the shortest token an API server issues (10
// minutes).
func TokenRenewal(issued, expires time.Time, renewBefore time.Duration) time.Time {
	life := expires.Sub(issued)
	if renewBefore <= 0 || renewBefore >= life {
		renewBefore = life / 3
	}
	return expires.Add(-renewBefore)
}
