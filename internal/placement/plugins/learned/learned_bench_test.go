package learned_test

import (
	"fmt"
	"testing"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins/learned"
)

// BenchmarkNormalizeScore measures the plugin's work for one decision: the
// encoding of every candidate, one forward pass and the normalisation.
func BenchmarkNormalizeScore(b *testing.B) {
	p, err := learned.New()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{5, 50, 500} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			clusters := make([]placement.Cluster, n)
			for i := range clusters {
				clusters[i] = member(fmt.Sprintf("c%03d", i), 5+i%7, int64(500*(i%8)), i == n-1)
			}
			s := placement.NewSnapshot(clusters, nil, nil)
			w := workload(3)
			scores := make([]int64, n)
			b.ReportAllocs()
			for b.Loop() {
				p.(*learned.Learned).NormalizeScore(b.Context(), w, s.Clusters, scores)
			}
		})
	}
}
