package engine

import (
	"container/heap"
	"time"
)

// Queue holds values in time order, the one event queue of every
// discrete-event loop in Meridian (the engine's, and the learning
// environments' departures). Pop returns the earliest value; values due at
// the same time come in the order Tie gives, and in the order they were
// pushed where Tie is nil or calls them equal. The zero value is an empty
// queue that keeps push order.
type Queue[T any] struct {
	// Tie orders values due at the same time: negative when a comes
	// first. Set it before the first Push.
	Tie   func(a, b T) int
	items items[T]
	seq   uint64
}

type item[T any] struct {
	at  time.Duration
	seq uint64
	v   T
}

type items[T any] struct {
	list []item[T]
	tie  func(a, b T) int
}

func (q *items[T]) Len() int { return len(q.list) }
func (q *items[T]) Less(i, j int) bool {
	a, b := &q.list[i], &q.list[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if q.tie != nil {
		if c := q.tie(a.v, b.v); c != 0 {
			return c < 0
		}
	}
	return a.seq < b.seq
}
func (q *items[T]) Swap(i, j int) { q.list[i], q.list[j] = q.list[j], q.list[i] }
func (q *items[T]) Push(x any)    { q.list = append(q.list, x.(item[T])) }
func (q *items[T]) Pop() any {
	last := q.list[len(q.list)-1]
	var zero item[T]
	q.list[len(q.list)-1] = zero // let the value go
	q.list = q.list[:len(q.list)-1]
	return last
}

// Push adds v, due at at.
func (q *Queue[T]) Push(at time.Duration, v T) {
	q.items.tie = q.Tie
	q.seq++
	heap.Push(&q.items, item[T]{at: at, seq: q.seq, v: v})
}

// Next returns when the earliest value is due, and false when the queue is
// empty.
func (q *Queue[T]) Next() (time.Duration, bool) {
	if len(q.items.list) == 0 {
		return 0, false
	}
	return q.items.list[0].at, true
}

// Pop removes and returns the earliest value and when it is due. The queue
// must not be empty.
func (q *Queue[T]) Pop() (time.Duration, T) {
	it := heap.Pop(&q.items).(item[T])
	return it.at, it.v
}

// Len is how many values are queued.
func (q *Queue[T]) Len() int { return len(q.items.list) }
