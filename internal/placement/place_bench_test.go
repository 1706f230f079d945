package placement_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
)

// benchClusters builds n clusters of m nodes each (16 CPU, 64Gi, 110 pods)
// that are between 0% and 90% used, deterministically, every tenth a cloud
// cluster, with a latency row from cluster 0 to every other one.
func benchClusters(n, m int) ([]placement.Cluster, placement.Latency) {
	const gi = 1 << 30
	clusters := make([]placement.Cluster, n)
	row := make(map[string]time.Duration, n)
	for i := range clusters {
		nodes := make([]placement.Node, m)
		for j := range nodes {
			used := int64((i*7 + j*13) % 10) // tenths used
			nodes[j] = placement.Node{
				Name:        fmt.Sprintf("node-%d", j),
				Allocatable: placement.Resources{MilliCPU: 16000, Memory: 64 * gi, Pods: 110},
				Requested:   placement.Resources{MilliCPU: 1600 * used * 9 / 10, Memory: 64 * gi * used / 10, Pods: 10 * used},
			}
		}
		name := fmt.Sprintf("cluster-%04d", i)
		clusters[i] = placement.Cluster{Name: name, Ready: true, Cloud: i%10 == 9, Nodes: nodes}
		row[name] = time.Duration(1+(i*37)%100) * time.Millisecond
	}
	return clusters, placement.Latency{clusters[0].Name: row}
}

// BenchmarkPlace measures one Place call (filter, exact fit count, score,
// divide, explain) on a snapshot built once outside the timer, for the
// worst-fit policy with bursting and the cluster-affinity policy with
// substitution.
func BenchmarkPlace(b *testing.B) {
	fw, err := plugins.NewFramework()
	if err != nil {
		b.Fatal(err)
	}
	sizes := []struct{ clusters, nodes int }{{10, 20}, {100, 20}, {1000, 20}, {100, 5000}}
	for _, size := range sizes {
		clusters, latency := benchClusters(size.clusters, size.nodes)
		s := placement.NewSnapshot(clusters, latency, nil)
		workloads := []*placement.Workload{
			{
				Key: "default/worstfit", Replicas: 50, Policy: placement.PolicyWorstFit, Bursting: true,
				PodRequests: placement.Resources{MilliCPU: 500, Memory: 512 << 20, Pods: 1},
			},
			{
				Key: "default/affinity", Replicas: 50, Policy: placement.PolicyClusterAffinity, Substitution: true,
				Locations:   []string{clusters[0].Name, clusters[1].Name},
				PodRequests: placement.Resources{MilliCPU: 500, Memory: 512 << 20, Pods: 1},
			},
		}
		for _, w := range workloads {
			b.Run(fmt.Sprintf("clusters=%d/nodes=%d/policy=%s", size.clusters, size.nodes, w.Policy), func(b *testing.B) {
				ctx := b.Context()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := fw.Place(ctx, s, w); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			})
		}
	}
}

// BenchmarkNewSnapshot measures building a snapshot, which Place does not
// include.
func BenchmarkNewSnapshot(b *testing.B) {
	for _, size := range []struct{ clusters, nodes int }{{100, 20}, {100, 5000}} {
		clusters, latency := benchClusters(size.clusters, size.nodes)
		b.Run(fmt.Sprintf("clusters=%d/nodes=%d", size.clusters, size.nodes), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				placement.NewSnapshot(clusters, latency, nil)
			}
		})
	}
}

// BenchmarkFitCount measures the exact capacity count of one cluster, the
// hot loop of Place.
func BenchmarkFitCount(b *testing.B) {
	for _, nodes := range []int{20, 5000} {
		clusters, _ := benchClusters(1, nodes)
		c := placement.NewSnapshot(clusters, nil, nil).Clusters[0]
		req := placement.Resources{MilliCPU: 500, Memory: 512 << 20, Pods: 1}
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			for b.Loop() {
				c.FitCount(req, nil)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
		})
	}
}
