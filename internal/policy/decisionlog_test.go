package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
)

// TestReplay logs decisions under one revision, loads another that decides
// differently, and replays the logged decisions from the log file: each
// replay equals the logged result, because it runs on the logged revision.
func TestReplay(t *testing.T) {
	srv := &bundleServer{}
	srv.set(pack(t, testBundle(t, "r1", 0), ""))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	logPath := filepath.Join(t.TempDir(), "decisions.jsonl")
	e, err := New(t.Context(), Options{BundleURL: hs.URL, DecisionLogPath: logPath, KeepRevisions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()

	inputs := []VMInput{
		{Name: "ns/a", CPUMilli: 2000, MemoryMiB: 8192, OriginRegion: "westeurope", MaxLatencyMs: 20},
		{Name: "ns/b", CPUMilli: 4000, MemoryMiB: 32768, Residency: "EU", Providers: []string{"azure"}},
		{Name: "ns/c", CPUMilli: 2000, MemoryMiB: 8192, Provider: "azure", Region: "westeurope"},
	}
	for _, in := range inputs {
		if _, err := e.VM(t.Context(), in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Eval(t.Context(), "data.meridian.vm.sizes.cheapest", map[string]any{"cpuMilli": 1000, "memoryMiB": 1024}); err != nil {
		t.Fatal(err)
	}
	// r2 prices every Azure size at 9 dollars an hour: the same inputs now
	// decide differently.
	srv.set(pack(t, testBundle(t, "r2", 9), ""))
	if err := e.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	logged, err := ReadDecisions(f)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e.Decisions(), logged, cmpIgnoreTimes); diff != "" {
		t.Errorf("decision log file and ring differ (-ring +file):\n%s", diff)
	}
	if len(logged) != len(inputs)+1 {
		t.Fatalf("decision log has %d decisions, want %d", len(logged), len(inputs)+1)
	}
	for _, d := range logged {
		t.Run(d.ID, func(t *testing.T) {
			if d.Revision != "r1" {
				t.Errorf("logged revision %q, want r1", d.Revision)
			}
			got, err := e.Replay(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, d.Result), decode(t, got)); diff != "" {
				t.Errorf("replayed result differs from the logged one (-logged +replayed):\n%s", diff)
			}
			// The current revision decides differently: the replay did use
			// the logged revision.
			now, err := e.Eval(t.Context(), d.Query, d.Input)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Equal(decode(t, d.Result), decode(t, now.Result)) {
				t.Errorf("revision r2 decides %s as r1 did; the test cannot tell the revisions apart", d.Query)
			}
		})
	}
}

func TestReplayRevisionGone(t *testing.T) {
	srv := &bundleServer{}
	srv.set(pack(t, testBundle(t, "r1", 0), ""))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	e, err := New(t.Context(), Options{BundleURL: hs.URL, KeepRevisions: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.Eval(t.Context(), VMQuery, VMInput{CPUMilli: 1000, MemoryMiB: 1024})
	if err != nil {
		t.Fatal(err)
	}
	srv.set(pack(t, testBundle(t, "r2", 0), ""))
	if err := e.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Replay(t.Context(), d); !errors.Is(err, ErrRevisionGone) {
		t.Errorf("Replay() error = %v, want %v", err, ErrRevisionGone)
	}
}

func TestDecisionRing(t *testing.T) {
	var buf bytes.Buffer
	e, err := New(t.Context(), Options{DecisionLogSize: 2}, WithDecisionWriter(&buf))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 3 {
		d, err := e.Eval(t.Context(), "data.meridian.vm.latency.limited", map[string]any{"maxLatencyMs": 5})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	var got []string
	for _, d := range e.Decisions() {
		got = append(got, d.ID)
	}
	if diff := cmp.Diff(ids[1:], got); diff != "" {
		t.Errorf("ring keeps (-want +got):\n%s", diff)
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n != 3 {
		t.Errorf("writer has %d lines, want 3", n)
	}
	if _, err := e.Eval(t.Context(), "data.meridian.nothing", nil); !errors.Is(err, ErrUndefined) {
		t.Errorf("Eval of an undefined query: error = %v, want %v", err, ErrUndefined)
	}
}

func decode(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("failed to decode %s: %v", raw, err)
	}
	return v
}

// TestDecisionLine checks that a decision's line is one line of JSON that
// reads as what json.Marshal writes, for the engine's own encodings and for
// inputs it must validate and compact.
func TestDecisionLine(t *testing.T) {
	at := time.Date(2026, 11, 23, 21, 40, 0, 123456789, time.UTC)
	tests := []struct {
		name  string
		d     Decision
		valid bool
	}{
		{name: "result", valid: true, d: Decision{ID: "1", Time: at, Revision: "r\"1", Query: VMQuery,
			Input: json.RawMessage(`{"name":"ns/a","cpuMilli":2000}`), Result: json.RawMessage(`{"candidates":[],"x":"é\u2028"}`)}},
		{name: "error", valid: false, d: Decision{ID: "2", Time: at, Revision: "r1", Query: "data.x",
			Input: json.RawMessage(`{"a": 1}`), Error: "failed: \"x\"\n"}},
		{name: "input on several lines", valid: true, d: Decision{ID: "3", Time: at, Revision: "r1", Query: "data.x",
			Input: json.RawMessage("{\n  \"a\": 1\n}"), Result: json.RawMessage(`true`)}},
		{name: "no input", valid: false, d: Decision{ID: "4", Time: at, Revision: "r1", Query: "data.x", Error: "e"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendDecision(nil, tc.d, tc.valid)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.ContainsAny(got, "\r\n") {
				t.Errorf("line has a line break: %s", got)
			}
			if diff := cmp.Diff(decode(t, want), decode(t, got)); diff != "" {
				t.Errorf("line (-json.Marshal +appendDecision):\n%s", diff)
			}
		})
	}
}

// TestDecisionLogConcurrent records from many goroutines into a writer
// that is slow: every line is written once, whole, and Close waits for them.
func TestDecisionLogConcurrent(t *testing.T) {
	w := &slowWriter{}
	l := newDecisionLog(w, 4)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				l.record(Decision{ID: fmt.Sprintf("%d-%d", g, i), Input: json.RawMessage(`{}`)}, true, logr.Discard())
			}
		}()
	}
	wg.Wait()
	l.flush()
	got, err := ReadDecisions(bytes.NewReader(w.bytes()))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range got {
		if seen[d.ID] {
			t.Errorf("decision %s written twice", d.ID)
		}
		seen[d.ID] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d decisions written, want %d", len(seen), writers*each)
	}
}

// slowWriter takes a while for every write and fails on concurrent ones.
type slowWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *slowWriter) Write(p []byte) (int, error) {
	if !w.mu.TryLock() {
		return 0, errors.New("concurrent write")
	}
	defer w.mu.Unlock()
	time.Sleep(time.Millisecond)
	return w.buf.Write(p)
}

func (w *slowWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.buf.Bytes()...)
}
