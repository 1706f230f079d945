package testbed

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// FuzzParseProfile decodes testbed profiles, as `meridian testbed up
// --profile file` does: ParseProfile must not panic, and a profile it
// accepts fits a testbed (one to maxNodes nodes a member, positive
// latencies between every pair) and decodes to the same after encoding.
func FuzzParseProfile(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("profiles", "*.yaml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no profiles to seed with: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	uniform, err := yaml.Marshal(Uniform(UniformOptions{Clusters: 3}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uniform)
	f.Add([]byte("name: x\nclusters: [{name: a, region: r, nodes: [{count: 1, cpu: 1e3, memory: 1Ei}]}]\nlatencyMs: {a: {a: 0}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("refused with an empty error")
			}
			return
		}
		for _, c := range p.Clusters {
			if n := c.NodeCount(); n < 1 || n > maxNodes {
				t.Errorf("member %q of an accepted profile has %d nodes", c.Name, n)
			}
		}
		if len(p.LatencyMs) > 0 {
			for i, a := range p.Clusters {
				for _, b := range p.Clusters[i+1:] {
					if d, ok := p.Latency(a.Name, b.Name); !ok || d <= 0 {
						t.Errorf("latency between %q and %q of an accepted profile is %v (declared %v)", a.Name, b.Name, d, ok)
					}
				}
			}
		}
		out, err := yaml.Marshal(p)
		if err != nil {
			t.Fatalf("failed to encode an accepted profile: %v", err)
		}
		again, err := ParseProfile(out)
		if err != nil {
			t.Fatalf("ParseProfile refused its own output: %v\n%s", err, out)
		}
		if diff := cmp.Diff(p, again, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
			t.Errorf("profile changed through encoding and decoding (-first +second):\n%s", diff)
		}
	})
}
