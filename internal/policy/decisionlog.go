package policy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// A Decision is one evaluation, as the decision log records it: enough to
// evaluate it again (Replay) and to compare the two results.
type Decision struct {
	// ID identifies the decision (a UUID).
	ID string `json:"decisionID"`
	// Time is when the decision was made.
	Time time.Time `json:"time"`
	// Revision is the bundle revision it was made with.
	Revision string `json:"revision"`
	// Query is the Rego query evaluated.
	Query string `json:"query"`
	// Input is the input document, as JSON.
	Input json.RawMessage `json:"input"`
	// Result is the query's value, as JSON; empty when Error is set.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is why the evaluation failed, empty when it did not.
	Error string `json:"error,omitempty"`
}

// decisionLog writes decisions as JSON lines to w (when set) and keeps the
// most recent ones in a ring.
type decisionLog struct {
	mu       sync.Mutex
	w        io.Writer
	ring     []Decision
	next     int
	full     bool
	failures int
}

func newDecisionLog(w io.Writer, size int) *decisionLog {
	return &decisionLog{w: w, ring: make([]Decision, size)}
}

func (l *decisionLog) record(d Decision, logger logr.Logger) {
	var line []byte
	if l.w != nil {
		b, err := json.Marshal(d)
		if err != nil {
			logger.Error(err, "Failed to encode a policy decision", "decisionID", d.ID)
		}
		line = append(b, '\n')
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ring[l.next] = d
	l.next = (l.next + 1) % len(l.ring)
	l.full = l.full || l.next == 0
	if line != nil {
		if _, err := l.w.Write(line); err != nil {
			// One line per failure would flood the log when the disk is full.
			if l.failures++; l.failures == 1 || l.failures%1000 == 0 {
				logger.Error(err, "Failed to write to the policy decision log", "failures", l.failures)
			}
		}
	}
}

func (l *decisionLog) list() []Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.full {
		return append([]Decision(nil), l.ring[:l.next]...)
	}
	return append(append([]Decision(nil), l.ring[l.next:]...), l.ring[:l.next]...)
}

// Decisions returns the decisions kept in memory, oldest first.
func (e *Engine) Decisions() []Decision { return e.log.list() }

// Decision returns the decision with the given ID, if it is still kept in
// memory.
func (e *Engine) Decision(id string) (Decision, bool) {
	for _, d := range e.log.list() {
		if d.ID == id {
			return d, true
		}
	}
	return Decision{}, false
}

// Replay evaluates a logged decision again, with the bundle revision it was
// made with, and returns the result. The engine keeps the last
// Options.KeepRevisions revisions; an older one returns ErrRevisionGone.
// Replay is not itself logged.
func (e *Engine) Replay(ctx context.Context, d Decision) (json.RawMessage, error) {
	r, kept := e.kept.get(d.Revision)
	if r == nil {
		return nil, fmt.Errorf("failed to replay decision %s: %w: revision %q (kept: %s)", d.ID, ErrRevisionGone, d.Revision, strings.Join(kept, ", "))
	}
	out, err := evalOn(ctx, r, d.Query, d.Input)
	if err != nil {
		return nil, fmt.Errorf("failed to replay decision %s: %w", d.ID, err)
	}
	return out, nil
}

// ReadDecisions reads a decision log written by the engine (JSON lines).
func ReadDecisions(r io.Reader) ([]Decision, error) {
	var out []Decision
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var d Decision
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return out, fmt.Errorf("failed to read decision log line %d: %w", line, err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("failed to read the decision log: %w", err)
	}
	return out, nil
}
