package bench

import (
	"strings"
	"testing"
	"time"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

func TestMedian(t *testing.T) {
	if got := median([]time.Duration{3, 1, 2}); got != 2 {
		t.Errorf("median(3, 1, 2) = %v, want 2", got)
	}
}

func TestTableShowsThePaperBeside(t *testing.T) {
	var b strings.Builder
	err := Table(&b, []Result{{Policy: multiclusterv1alpha1.ClusterAffinity, Replicas: 100, Deployed: 1500 * time.Millisecond, Running: 2 * time.Second, Clusters: "a=100"}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ClusterAffinity", "1.50s", "2.00s", "11.53s", "Median of 3 runs"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
