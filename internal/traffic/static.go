package traffic

import (
	"context"
	"fmt"
	"maps"
	"sync"
)

// Static is a Source that answers from memory what Set put there, for
// tests; its zero value knows no traffic. It is safe for
// concurrent use.
type Static struct {
	mu      sync.RWMutex
	traffic map[string]map[string]float64
	err     error
}

var _ Source = &Static{}

// Set makes Traffic answer traffic for w (by its Key; Query and
// ClusterLabel do not matter). Static keeps a copy; an empty or nil map
// forgets w.
func (s *Static) Set(w Workload, traffic map[string]float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(traffic) == 0 {
		delete(s.traffic, w.Key())
		return
	}
	if s.traffic == nil {
		s.traffic = map[string]map[string]float64{}
	}
	s.traffic[w.Key()] = maps.Clone(traffic)
}

// SetError makes every Traffic call fail with err, as an unreachable
// server would, until SetError(nil).
func (s *Static) SetError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Traffic returns a copy of what Set put there for w, or an empty map.
func (s *Static) Traffic(ctx context.Context, w Workload) (map[string]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("failed to read traffic of %s: %w", w.Key(), err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.err != nil {
		return nil, s.err
	}
	traffic := maps.Clone(s.traffic[w.Key()])
	if traffic == nil {
		traffic = map[string]float64{}
	}
	return traffic, nil
}
