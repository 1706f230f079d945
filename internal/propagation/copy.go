package propagation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
)

// Copy returns the member copy of a resource template placed whole (a
// kind that is not divided): the template's apiVersion, kind, name,
// namespace, labels, annotations and every field but status, stamped with
// owner (its labels, UID and the template's generation). What each cluster
// allocates for itself is left out: a Service's cluster IPs (a headless
// Service's None stays), a claim's bound volume. A ServiceAccount token
// Secret is refused (ErrNotCopyable).
func Copy(tpl *unstructured.Unstructured, owner Owner) (*unstructured.Unstructured, error) {
	if tpl.GetAPIVersion() == "v1" && tpl.GetKind() == "Secret" {
		if t, _, _ := unstructured.NestedString(tpl.Object, "type"); t == string(corev1.SecretTypeServiceAccountToken) {
			return nil, fmt.Errorf("secret %s is a ServiceAccount token, valid only in the cluster that issued it: %w", klog.KObj(tpl), ErrNotCopyable)
		}
	}
	out := &unstructured.Unstructured{Object: map[string]any{}}
	for k, v := range tpl.Object {
		if k != "metadata" && k != "status" {
			out.Object[k] = v
		}
	}
	out = out.DeepCopy()
	out.SetAPIVersion(tpl.GetAPIVersion())
	out.SetKind(tpl.GetKind())
	out.SetName(tpl.GetName())
	out.SetNamespace(tpl.GetNamespace())
	out.SetLabels(tpl.GetLabels())
	ann := tpl.GetAnnotations()
	delete(ann, corev1.LastAppliedConfigAnnotation)
	out.SetAnnotations(ann)
	switch {
	case tpl.GetAPIVersion() == "v1" && tpl.GetKind() == "Service":
		// A headless Service stays headless.
		if ip, _, _ := unstructured.NestedString(out.Object, "spec", "clusterIP"); ip != corev1.ClusterIPNone {
			unstructured.RemoveNestedField(out.Object, "spec", "clusterIP")
			unstructured.RemoveNestedField(out.Object, "spec", "clusterIPs")
		}
	case tpl.GetAPIVersion() == "v1" && tpl.GetKind() == "PersistentVolumeClaim":
		unstructured.RemoveNestedField(out.Object, "spec", "volumeName")
	}
	owner.stamp(out, tpl.GetGeneration())
	return out, nil
}
