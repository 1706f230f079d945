package testbed

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/bootstrap"
	"github.com/meridian-dev/meridian/internal/scheme"
)

// FieldManager is the server-side apply field manager of what the testbed
// writes.
const FieldManager = "meridian-testbed"

// Scheme returns the scheme of the testbed's clients (see package scheme).
func Scheme() *runtime.Scheme { return scheme.New() }

// installCRDs installs Meridian's CRDs (bootstrap.InstallCRDs) as the
// testbed.
func installCRDs(ctx context.Context, c client.Client) (int, error) {
	return bootstrap.InstallCRDs(ctx, c, FieldManager)
}

// apply server-side applies obj as FieldManager, taking over conflicting
// fields: the testbed owns what it writes.
func apply(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(FieldManager), client.ForceOwnership)
}
