package policy

import (
	"bufio"
	"bytes"
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
//
// Writing is off the evaluation path's lock: a decision's line is encoded
// without the lock, appended to pending under it, and written by at most one
// caller at a time, outside it. The caller that finds no write under way
// writes every line pending, including those that arrive while it writes,
// before it returns; the others return at once. So no caller waits for
// another's I/O, no line is dropped, lines keep their order, and a caller
// that evaluates alone has its line written when it returns.
type decisionLog struct {
	mu   sync.Mutex
	ring []Decision
	next int
	full bool

	w        io.Writer
	pending  []byte
	spare    []byte
	writing  bool
	idle     *sync.Cond // signalled when writing ends
	failures int
}

func newDecisionLog(w io.Writer, size int) *decisionLog {
	l := &decisionLog{w: w, ring: make([]Decision, size)}
	l.idle = sync.NewCond(&l.mu)
	return l
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8192); return &b }}

// record logs d. valid says that d's input and result are known to be
// valid JSON (the engine decoded the one and wrote the other), so they need
// not be checked again.
func (l *decisionLog) record(d Decision, valid bool, logger logr.Logger) {
	var line *[]byte
	if l.w != nil {
		line = lineBuffers.Get().(*[]byte)
		b, err := appendDecision((*line)[:0], d, valid)
		if err != nil {
			logger.Error(err, "Failed to encode a policy decision", "decisionID", d.ID)
		}
		*line = append(b, '\n')
	}
	l.mu.Lock()
	l.ring[l.next] = d
	l.next = (l.next + 1) % len(l.ring)
	l.full = l.full || l.next == 0
	if line == nil {
		l.mu.Unlock()
		return
	}
	l.pending = append(l.pending, *line...)
	lineBuffers.Put(line)
	if l.writing {
		l.mu.Unlock()
		return
	}
	l.writing = true
	for len(l.pending) > 0 {
		buf := l.pending
		l.pending = l.spare[:0]
		l.mu.Unlock()
		_, err := l.w.Write(buf)
		l.mu.Lock()
		l.spare = buf
		if err != nil {
			// One line per failure would flood the log when the disk is full.
			if l.failures++; l.failures == 1 || l.failures%1000 == 0 {
				logger.Error(err, "Failed to write to the policy decision log", "failures", l.failures)
			}
		}
	}
	l.writing = false
	l.idle.Broadcast()
	l.mu.Unlock()
}

// flush waits until every line recorded so far is written.
func (l *decisionLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.writing {
		l.idle.Wait()
	}
}

// appendDecision appends d as one line of JSON, as json.Marshal writes it.
// The input and result are copied as they are when they are valid JSON on
// one line (the engine's own encodings are); any other is encoded by
// encoding/json, which validates and compacts it.
func appendDecision(b []byte, d Decision, valid bool) ([]byte, error) {
	if !oneLine(d.Input, valid) || !oneLine(d.Result, valid) {
		line, err := json.Marshal(d)
		return append(b, line...), err
	}
	b = append(b, `{"decisionID":`...)
	b = appendString(b, d.ID)
	b = append(b, `,"time":"`...)
	b = d.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","revision":`...)
	b = appendString(b, d.Revision)
	b = append(b, `,"query":`...)
	b = appendString(b, d.Query)
	b = append(b, `,"input":`...)
	if len(d.Input) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, d.Input...)
	}
	if len(d.Result) > 0 {
		b = append(b, `,"result":`...)
		b = append(b, d.Result...)
	}
	if d.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, d.Error)
	}
	return append(b, '}'), nil
}

// oneLine reports whether raw is empty or valid JSON (known to be when
// valid is set) without a line break, so that it can be copied into a JSON
// line as it is.
func oneLine(raw json.RawMessage, valid bool) bool {
	if len(raw) == 0 {
		return true
	}
	if bytes.IndexByte(raw, '\n') >= 0 || bytes.IndexByte(raw, '\r') >= 0 {
		return false
	}
	return valid || json.Valid(raw)
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
