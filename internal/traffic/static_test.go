package traffic

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStatic(t *testing.T) {
	web := Workload{Namespace: "shop", Name: "web"}
	unreachable := errors.New("prometheus unreachable")
	tests := []struct {
		name    string
		setup   func(s *Static)
		w       Workload
		want    map[string]float64
		wantErr error
	}{
		{
			name: "nothing set",
			w:    web,
			want: map[string]float64{},
		},
		{
			name:  "set",
			setup: func(s *Static) { s.Set(web, map[string]float64{"cluster1": 10, "cluster2": 2.5}) },
			w:     web,
			want:  map[string]float64{"cluster1": 10, "cluster2": 2.5},
		},
		{
			name:  "query and cluster label do not matter",
			setup: func(s *Static) { s.Set(web, map[string]float64{"cluster1": 10}) },
			w:     Workload{Namespace: "shop", Name: "web", Query: "up", ClusterLabel: "zone"},
			want:  map[string]float64{"cluster1": 10},
		},
		{
			name:  "other workload",
			setup: func(s *Static) { s.Set(web, map[string]float64{"cluster1": 10}) },
			w:     Workload{Namespace: "shop", Name: "cart"},
			want:  map[string]float64{},
		},
		{
			name: "set again replaces",
			setup: func(s *Static) {
				s.Set(web, map[string]float64{"cluster1": 10})
				s.Set(web, map[string]float64{"cluster2": 1})
			},
			w:    web,
			want: map[string]float64{"cluster2": 1},
		},
		{
			name: "set empty forgets",
			setup: func(s *Static) {
				s.Set(web, map[string]float64{"cluster1": 10})
				s.Set(web, nil)
			},
			w:    web,
			want: map[string]float64{},
		},
		{
			name: "error",
			setup: func(s *Static) {
				s.Set(web, map[string]float64{"cluster1": 10})
				s.SetError(unreachable)
			},
			w:       web,
			wantErr: unreachable,
		},
		{
			name: "error cleared",
			setup: func(s *Static) {
				s.Set(web, map[string]float64{"cluster1": 10})
				s.SetError(unreachable)
				s.SetError(nil)
			},
			w:    web,
			want: map[string]float64{"cluster1": 10},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Static
			if tc.setup != nil {
				tc.setup(&s)
			}
			got, err := s.Traffic(t.Context(), tc.w)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Traffic() error = %v; want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Traffic(%s) (-want +got):\n%s", tc.w.Key(), diff)
			}
		})
	}
}

func TestStaticKeepsCopies(t *testing.T) {
	var s Static
	web := Workload{Namespace: "shop", Name: "web"}
	in := map[string]float64{"cluster1": 10}
	s.Set(web, in)
	in["cluster1"] = 99

	out, err := s.Traffic(t.Context(), web)
	if err != nil {
		t.Fatal(err)
	}
	out["cluster1"] = 42

	got, err := s.Traffic(t.Context(), web)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]float64{"cluster1": 10}, got); diff != "" {
		t.Errorf("Traffic() after changing the maps passed in and out (-want +got):\n%s", diff)
	}
}

func TestStaticCancelledContext(t *testing.T) {
	var s Static
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Traffic(ctx, Workload{Namespace: "shop", Name: "web"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Traffic() error = %v; want %v", err, context.Canceled)
	}
}

// TestStaticConcurrentUse is for the race detector: readers and writers of
// one Static at once.
func TestStaticConcurrentUse(t *testing.T) {
	var s Static
	web := Workload{Namespace: "shop", Name: "web"}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				if i%2 == 0 {
					s.Set(web, map[string]float64{"cluster1": float64(j)})
					continue
				}
				if _, err := s.Traffic(t.Context(), web); err != nil {
					t.Errorf("Traffic() error = %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}
