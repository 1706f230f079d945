package policy

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/meridian-dev/meridian/policies"
)

// TestRego runs the default bundle's Rego unit tests (test_ rules), each as
// a subtest, so that go test fails when one does.
func TestRego(t *testing.T) {
	b, err := readFS(policies.Bundle, nil, "the default bundle")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	store := inmem.New()
	txn, err := store.NewTransaction(ctx, storage.WriteParams)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Abort(ctx, txn)
	ch, err := tester.NewRunner().
		SetStore(store).
		SetBundles(map[string]*bundle.Bundle{"policies": b}).
		RunTests(ctx, txn)
	if err != nil {
		t.Fatalf("failed to run the Rego tests: %v", err)
	}
	n := 0
	for r := range ch {
		n++
		t.Run(r.Package+"."+r.Name, func(t *testing.T) {
			if r.Error != nil {
				t.Fatalf("error: %v", r.Error)
			}
			if r.Fail {
				t.Fatalf("failed (%s)", r.String())
			}
		})
	}
	if n == 0 {
		t.Fatal("the default bundle has no Rego tests")
	}
}
