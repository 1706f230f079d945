package engine

import (
	"cmp"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

func TestQueue(t *testing.T) {
	type push struct {
		at int
		v  int
	}
	pushes := []push{{at: 3, v: 9}, {at: 1, v: 5}, {at: 3, v: 2}, {at: 2, v: 7}, {at: 3, v: 4}}
	tests := []struct {
		name string
		tie  func(a, b int) int
		want []int
	}{
		{name: "ties in push order", want: []int{5, 7, 9, 2, 4}},
		{name: "ties by value", tie: cmp.Compare[int], want: []int{5, 7, 2, 4, 9}},
		{name: "a tie that calls all equal keeps push order", tie: func(int, int) int { return 0 }, want: []int{5, 7, 9, 2, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := Queue[int]{Tie: tc.tie}
			if _, ok := q.Next(); ok {
				t.Fatal("Next() on an empty queue reported a value")
			}
			for _, p := range pushes {
				q.Push(timeOf(p.at), p.v)
			}
			var got []int
			last := timeOf(0)
			for q.Len() > 0 {
				next, _ := q.Next()
				at, v := q.Pop()
				if at != next || at < last {
					t.Fatalf("Pop() at %v after %v, Next() said %v", at, last, next)
				}
				last = at
				got = append(got, v)
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("popped values mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func timeOf(s int) time.Duration { return time.Duration(s) * time.Second }
