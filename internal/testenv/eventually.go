package testenv

import (
	"testing"
	"time"
)

// Eventually polls check every 100 ms until it returns "" or timeout
// passes, then fails t with what was awaited and check's last answer (a
// cmp.Diff or a sentence saying what is still wrong).
func Eventually(t testing.TB, timeout time.Duration, what string, check func() string) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if last = check(); last == "" {
			return
		}
	}
	t.Fatalf("%s: not reached within %s: %s", what, timeout, last)
}
