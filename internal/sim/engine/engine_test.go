package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEngineOrder(t *testing.T) {
	tests := []struct {
		name     string
		schedule func(e *Engine, log *[]string)
		until    time.Duration
		want     []string
	}{
		{
			name: "by time then by scheduling order",
			schedule: func(e *Engine, log *[]string) {
				e.At(2*time.Second, func() { *log = append(*log, "b") })
				e.At(time.Second, func() { *log = append(*log, "a") })
				e.At(2*time.Second, func() { *log = append(*log, "c") })
			},
			until: time.Minute,
			want:  []string{"a", "b", "c"},
		},
		{
			name: "events after the end stay queued",
			schedule: func(e *Engine, log *[]string) {
				e.At(time.Second, func() { *log = append(*log, "a") })
				e.At(time.Hour, func() { *log = append(*log, "late") })
			},
			until: time.Minute,
			want:  []string{"a"},
		},
		{
			name: "an event scheduling into the past runs now",
			schedule: func(e *Engine, log *[]string) {
				e.At(time.Second, func() {
					e.At(0, func() { *log = append(*log, "past:"+e.Now().String()) })
				})
			},
			until: time.Minute,
			want:  []string{"past:1s"},
		},
		{
			name: "every stops when told",
			schedule: func(e *Engine, log *[]string) {
				n := 0
				e.Every(0, 10*time.Second, func() bool {
					*log = append(*log, e.Now().String())
					n++
					return n < 3
				})
			},
			until: time.Minute,
			want:  []string{"0s", "10s", "20s"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e Engine
			var got []string
			tc.schedule(&e, &got)
			e.RunUntil(tc.until)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if e.Now() != tc.until {
				t.Errorf("Now() = %v, want %v", e.Now(), tc.until)
			}
		})
	}
}

func BenchmarkEngine(b *testing.B) {
	for b.Loop() {
		var e Engine
		for i := range 10000 {
			e.At(time.Duration(i%97)*time.Second, func() {})
		}
		e.RunUntil(time.Hour)
	}
}
