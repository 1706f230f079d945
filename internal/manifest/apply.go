package manifest

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// What Apply did to an object, as kubectl says it.
const (
	Created    = "created"
	Configured = "configured"
	Unchanged  = "unchanged"
)

// Apply server-side applies a typed object (ForApply) as fieldManager,
// taking over fields others set, and says whether it was created,
// configured or left unchanged (its resourceVersion did not move), so that
// a command run twice can show it changed nothing.
func Apply(ctx context.Context, c client.Client, obj runtime.Object, fieldManager string) (string, error) {
	u, err := ForApply(obj)
	if err != nil {
		return "", err
	}
	before := &unstructured.Unstructured{}
	before.SetGroupVersionKind(u.GroupVersionKind())
	verb := Configured
	switch err := c.Get(ctx, client.ObjectKeyFromObject(u), before); {
	case apierrors.IsNotFound(err):
		verb = Created
	case err != nil:
		return "", fmt.Errorf("failed to read %s %s: %w", u.GetKind(), klog.KObj(u), err)
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldManager), client.ForceOwnership); err != nil {
		return "", fmt.Errorf("failed to apply %s %s: %w", u.GetKind(), klog.KObj(u), err)
	}
	if verb == Configured {
		after := &unstructured.Unstructured{}
		after.SetGroupVersionKind(u.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(u), after); err != nil {
			return "", fmt.Errorf("failed to read %s %s: %w", u.GetKind(), klog.KObj(u), err)
		}
		if after.GetResourceVersion() == before.GetResourceVersion() {
			verb = Unchanged
		}
	}
	return verb, nil
}
