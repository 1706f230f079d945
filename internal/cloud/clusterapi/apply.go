package clusterapi

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// apply writes obj with server-side apply, forcing Meridian's ownership of
// the fields it sets. obj must carry its apiVersion and kind. The error
// names the object, so that an object the API server rejects can be told
// from the others.
func (b *Backend) apply(ctx context.Context, obj client.Object) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	u, err := toUnstructured(obj)
	if err != nil {
		return err
	}
	err = b.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership)
	if meta.IsNoMatchError(err) {
		return fmt.Errorf("failed to apply %s %s/%s: %s is not installed in the management cluster (install Cluster API and its provider, see docs/cloud-clusterapi.md): %w",
			gvk.Kind, obj.GetNamespace(), obj.GetName(), gvk.GroupKind(), err)
	}
	if err != nil {
		return fmt.Errorf("failed to apply %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// toUnstructured converts through JSON, so that the omitempty and omitzero
// tags of the Cluster API types leave out what Meridian does not set
// (an empty struct would otherwise fail the CRDs' minProperties).
func toUnstructured(obj client.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("failed to encode %T %s/%s: %w", obj, obj.GetNamespace(), obj.GetName(), err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		return nil, fmt.Errorf("failed to decode %T %s/%s: %w", obj, obj.GetNamespace(), obj.GetName(), err)
	}
	return u, nil
}

// get reads the object of kind gvk named key into into, a Go type of that
// kind. It reads an unstructured object, so that the client's scheme needs
// no Cluster API types and a cached client reads from the API server.
func (b *Backend) get(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey, into any) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := b.client.Get(ctx, key, u); err != nil {
		return err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return fmt.Errorf("failed to decode %s %s: %w", gvk.Kind, key, err)
	}
	return nil
}

// list reads the objects of kind gvk that opts select into a slice of Go
// values of that kind.
func list[T any](ctx context.Context, c client.Reader, gvk schema.GroupVersionKind, opts ...client.ListOption) ([]T, error) {
	ul := &unstructured.UnstructuredList{}
	ul.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := c.List(ctx, ul, opts...); err != nil {
		return nil, err
	}
	out := make([]T, len(ul.Items))
	for i := range ul.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(ul.Items[i].Object, &out[i]); err != nil {
			return nil, fmt.Errorf("failed to decode %s %s/%s: %w", gvk.Kind, ul.Items[i].GetNamespace(), ul.Items[i].GetName(), err)
		}
	}
	return out, nil
}

// remove deletes the object of kind gvk named key if Meridian wrote it; an
// object or a kind that does not exist is already removed, and an object
// someone else wrote is left alone.
func (b *Backend) remove(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	err := b.client.Get(ctx, key, u)
	if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to read %s %s: %w", gvk.Kind, key, err)
	}
	if !written(u) || !u.GetDeletionTimestamp().IsZero() {
		return nil
	}
	err = b.client.Delete(ctx, u, client.Preconditions{UID: ptr.To(u.GetUID())}, client.PropagationPolicy(metav1.DeletePropagationBackground))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("failed to delete %s %s: %w", gvk.Kind, key, err)
	}
	return nil
}
