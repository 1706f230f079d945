package propagation

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// FieldManager is the server-side apply field manager of every object
// Meridian writes in members.
const FieldManager = "meridian"

// Owner identifies the management-cluster object a member object belongs to.
type Owner struct {
	Kind      string
	Namespace string
	Name      string
	UID       string
}

// Labels returns the labels that tie a member object to its owner.
func (o Owner) Labels() map[string]string {
	return map[string]string{
		multiclusterv1alpha1.LabelManagedBy:      multiclusterv1alpha1.ManagedByMeridian,
		multiclusterv1alpha1.LabelOwnerKind:      o.Kind,
		multiclusterv1alpha1.LabelOwnerNamespace: o.Namespace,
		multiclusterv1alpha1.LabelOwnerName:      o.Name,
	}
}

// Selector matches the member objects of the owner.
func (o Owner) Selector() client.MatchingLabels { return client.MatchingLabels(o.Labels()) }

// OwnerOf reads the owner from a member object's labels; ok is false for an
// object Meridian did not make.
func OwnerOf(obj metav1.Object) (o Owner, ok bool) {
	l := obj.GetLabels()
	if l[multiclusterv1alpha1.LabelManagedBy] != multiclusterv1alpha1.ManagedByMeridian || l[multiclusterv1alpha1.LabelOwnerName] == "" {
		return Owner{}, false
	}
	return Owner{
		Kind:      l[multiclusterv1alpha1.LabelOwnerKind],
		Namespace: l[multiclusterv1alpha1.LabelOwnerNamespace],
		Name:      l[multiclusterv1alpha1.LabelOwnerName],
		UID:       obj.GetAnnotations()[multiclusterv1alpha1.AnnotationOwnerUID],
	}, true
}

// stamp puts the owner's labels, UID and the generation obj was made from
// on obj.
func (o Owner) stamp(obj metav1.Object, generation int64) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range o.Labels() {
		labels[k] = v
	}
	obj.SetLabels(labels)
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[multiclusterv1alpha1.AnnotationOwnerUID] = o.UID
	ann[multiclusterv1alpha1.AnnotationOwnerGeneration] = strconv.FormatInt(generation, 10)
	obj.SetAnnotations(ann)
}

// stampTemplate puts the owner's labels on a pod template, so that the pods
// made from it can be traced back too.
func (o Owner) stampTemplate(tpl *corev1.PodTemplateSpec) {
	if tpl.Labels == nil {
		tpl.Labels = map[string]string{}
	}
	maps.Copy(tpl.Labels, o.Labels())
}

// Apply writes obj into a member with server-side apply, forcing Meridian's
// ownership of the fields it sets, and creates obj's namespace first if it
// does not exist. obj must carry its apiVersion and kind.
func Apply(ctx context.Context, c client.Client, obj client.Object) error {
	u, err := toUnstructured(obj)
	if err != nil {
		return err
	}
	apply := func() error {
		return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership)
	}
	err = apply()
	if apierrors.IsNotFound(err) && obj.GetNamespace() != "" {
		if err := ensureNamespace(ctx, c, obj.GetNamespace()); err != nil {
			return err
		}
		err = apply()
	}
	if err != nil {
		return fmt.Errorf("failed to apply %s %s: %w", u.GetKind(), klog.KObj(obj), err)
	}
	return nil
}

func toUnstructured(obj client.Object) (*unstructured.Unstructured, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		return nil, fmt.Errorf("%T %s has no apiVersion and kind to apply", obj, klog.KObj(obj))
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("failed to convert %T for apply: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	// Fields the server owns are never applied.
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

func ensureNamespace(ctx context.Context, c client.Client, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian,
	}}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to create namespace %q: %w", name, err)
	}
	return nil
}

// Adoptable reports whether a member object Meridian did not make for an
// owner may be taken over by a placement without a conflict: a namespace
// Meridian created only to hold the objects it placed there.
func Adoptable(obj metav1.Object, gvk schema.GroupVersionKind) bool {
	l := obj.GetLabels()
	return gvk.Group == "" && gvk.Kind == "Namespace" &&
		l[multiclusterv1alpha1.LabelManagedBy] == multiclusterv1alpha1.ManagedByMeridian && l[multiclusterv1alpha1.LabelOwnerName] == ""
}

// Kept reports whether a member copy of gvk stays when its placement
// leaves the member: a Namespace holds what other placements and the
// member's own users put there, so it is disowned (Disown), not deleted.
func Kept(gvk schema.GroupVersionKind) bool { return gvk.Group == "" && gvk.Kind == "Namespace" }

// Disown removes the owner's labels and annotations from a member object
// that stays (Kept), leaving it as Meridian's without an owner, which a
// placement may adopt again.
func Disown(ctx context.Context, c client.Client, obj client.Object) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels":      map[string]any{multiclusterv1alpha1.LabelOwnerKind: nil, multiclusterv1alpha1.LabelOwnerNamespace: nil, multiclusterv1alpha1.LabelOwnerName: nil},
		"annotations": map[string]any{multiclusterv1alpha1.AnnotationOwnerUID: nil, multiclusterv1alpha1.AnnotationOwnerGeneration: nil},
	}})
	if err != nil {
		return err
	}
	if err := c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to disown %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, klog.KObj(obj), err)
	}
	return nil
}
