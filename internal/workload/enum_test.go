package workload_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/meridian-dev/meridian/internal/placement"
)

// TestPolicyEnumIsTheRegistry checks that every CRD that carries a
// placement block accepts exactly the policies the placement framework
// knows (placement.Policies, which the profiles and the simulator's
// scenarios derive from), so that a policy added in one place is not
// refused, or accepted and unplaceable, in another.
func TestPolicyEnumIsTheRegistry(t *testing.T) {
	var want []string
	for _, p := range placement.Policies() {
		want = append(want, string(p))
	}
	slices.Sort(want)
	files, err := filepath.Glob("../../config/crd/bases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs under config/crd/bases (%v)", err)
	}
	found := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range crd.Spec.Versions {
			spec, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]
			if !ok {
				continue
			}
			pl, ok := spec.Properties["placement"]
			if !ok {
				continue
			}
			found++
			var got []string
			for _, e := range pl.Properties["policy"].Enum {
				var s string
				if err := yaml.Unmarshal(e.Raw, &s); err != nil {
					t.Fatalf("%s: enum value %s: %v", f, e.Raw, err)
				}
				got = append(got, s)
			}
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s: spec.placement.policy enum differs from placement.Policies() (-want +got):\n%s", crd.Name, v.Name, diff)
			}
		}
	}
	if found < 2 {
		t.Errorf("found %d CRDs with spec.placement, want at least MultiClusterDeployment's and MultiClusterJob's", found)
	}
}
