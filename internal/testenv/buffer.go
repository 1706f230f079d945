package testenv

import (
	"bytes"
	"sync"
)

// LockedBuffer is a bytes.Buffer that a component's logger (writing from
// its goroutines) and the test reading it may use at once.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
