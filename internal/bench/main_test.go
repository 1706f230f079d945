package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/testbed"
)

// The benchmarks' reduced runs share one testbed of three members (two
// nodes of 2 CPU each), started by the first test that needs it and
// stopped when the package's tests end; each benchmark uses namespaces of
// its own.
var shared struct {
	once sync.Once
	dir  string
	tb   *testbed.Testbed
	err  error
}

func sharedTestbed(t *testing.T) *testbed.Testbed {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "meridian-bench-test-"); shared.err != nil {
			return
		}
		shared.tb, shared.err = testbed.Up(context.Background(), testbed.Options{Name: "bench", Dir: filepath.Join(shared.dir, "testbed"),
			Profile: testbed.Uniform(testbed.UniformOptions{Clusters: 3, Nodes: 2, CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi")})})
	})
	if shared.err != nil {
		t.Fatalf("failed to start the testbed: %v", shared.err)
	}
	return shared.tb
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		if _, err := testbed.Down(context.Background(), filepath.Join(shared.dir, "testbed")); err != nil {
			fmt.Fprintf(os.Stderr, "failed to stop the testbed: %v\n", err)
			code = 1
		}
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}
