package placement

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestNewSnapshot(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	clusters := []Cluster{
		{Name: "nantes", Nodes: []Node{
			{Name: "a", Allocatable: res(4000, 16, 110), Requested: res(1500, 4, 10)},
			{Name: "b", Allocatable: res(4000, 16, 110), Requested: res(5000, 20, 120)},
			{Name: "c", Allocatable: res(4000, 16, 110), Unschedulable: true},
		}},
		{Name: "lille", Nodes: []Node{
			{Name: "a", Allocatable: Resources{MilliCPU: 2000, Memory: 4 * gi, Pods: 110, Scalar: map[corev1.ResourceName]int64{gpu: 2}}, Requested: Resources{Pods: 1, Scalar: map[corev1.ResourceName]int64{gpu: 1}}},
		}},
	}
	s := NewSnapshot(clusters, nil, nil)

	type summary struct {
		Name                        string
		Free                        []Resources
		TotalAllocatable, TotalFree Resources
	}
	var got []summary
	for _, c := range s.Clusters {
		got = append(got, summary{c.Name, c.Free, c.TotalAllocatable, c.TotalFree})
	}
	want := []summary{
		{
			Name:             "lille",
			Free:             []Resources{{MilliCPU: 2000, Memory: 4 * gi, Pods: 109, Scalar: map[corev1.ResourceName]int64{gpu: 1}}},
			TotalAllocatable: Resources{MilliCPU: 2000, Memory: 4 * gi, Pods: 110, Scalar: map[corev1.ResourceName]int64{gpu: 2}},
			TotalFree:        Resources{MilliCPU: 2000, Memory: 4 * gi, Pods: 109, Scalar: map[corev1.ResourceName]int64{gpu: 1}},
		},
		{
			Name:             "nantes",
			Free:             []Resources{res(2500, 12, 100), res(0, 0, 0), res(4000, 16, 110)},
			TotalAllocatable: res(8000, 32, 220), // the cordoned node does not count
			TotalFree:        res(2500, 12, 100),
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewSnapshot() mismatch (-want +got):\n%s", diff)
	}
}

func TestSnapshotCluster(t *testing.T) {
	s := NewSnapshot([]Cluster{{Name: "rennes"}, {Name: "lille"}, {Name: "nantes"}}, nil, nil)
	tests := []struct {
		name, cluster string
		found         bool
	}{
		{name: "first", cluster: "lille", found: true},
		{name: "last", cluster: "rennes", found: true},
		{name: "missing", cluster: "grenoble", found: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := s.Cluster(tc.cluster)
			if diff := cmp.Diff(tc.found, c != nil); diff != "" {
				t.Fatalf("Cluster(%q) found mismatch (-want +got):\n%s", tc.cluster, diff)
			}
			if c != nil && c.Name != tc.cluster {
				t.Errorf("Cluster(%q) = %q", tc.cluster, c.Name)
			}
		})
	}
}

func TestLatencyBetween(t *testing.T) {
	l := Latency{"rennes": {"nantes": 2160 * time.Microsecond}}
	tests := []struct {
		name   string
		a, b   string
		want   time.Duration
		wantOK bool
	}{
		{name: "as stored", a: "rennes", b: "nantes", want: 2160 * time.Microsecond, wantOK: true},
		{name: "reversed", a: "nantes", b: "rennes", want: 2160 * time.Microsecond, wantOK: true},
		{name: "itself", a: "lille", b: "lille", want: 0, wantOK: true},
		{name: "unknown", a: "rennes", b: "lille", want: 0, wantOK: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := l.Between(tc.a, tc.b)
			if diff := cmp.Diff([]any{tc.want, tc.wantOK}, []any{got, ok}); diff != "" {
				t.Errorf("Between(%q, %q) mismatch (-want +got):\n%s", tc.a, tc.b, diff)
			}
		})
	}
}

func TestPeakTraffic(t *testing.T) {
	traffic := map[string]map[string]float64{
		"web/front": {"lille": 10, "nantes": 30, "rennes": 30},
		"web/idle":  {"lille": 0},
	}
	tests := []struct {
		name, key, want string
		wantOK          bool
	}{
		{name: "ties go to the first name", key: "web/front", want: "nantes", wantOK: true},
		{name: "no traffic is no peak", key: "web/idle", wantOK: false},
		{name: "unknown workload", key: "web/none", wantOK: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range []*Snapshot{NewSnapshot(nil, nil, traffic), {Traffic: traffic}} {
				got, ok := s.PeakTraffic(tc.key)
				if diff := cmp.Diff([]any{tc.want, tc.wantOK}, []any{got, ok}); diff != "" {
					t.Errorf("PeakTraffic(%q) mismatch (-want +got):\n%s", tc.key, diff)
				}
			}
		})
	}
}
