package propagation

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// ErrNotCopyable is returned by Dependency for an object that only makes
// sense in the cluster that made it.
var ErrNotCopyable = errors.New("cannot be copied to another cluster")

// Dependency returns the member copy of src (a ConfigMap, Secret,
// ServiceAccount or PersistentVolumeClaim of the management cluster) for
// the workloads users: its labels and annotations, and what a pod reads of
// it (a ConfigMap's and Secret's data, a ServiceAccount's pull secrets and
// token mount, a claim's size, access modes, class and mode; not the
// volume it is bound to, which is the management cluster's). It is marked
// LabelDependency, with AnnotationUsedBy and AnnotationSourceVersion.
func Dependency(src client.Object, users []string) (client.Object, error) {
	meta := metav1.ObjectMeta{
		Name: src.GetName(), Namespace: src.GetNamespace(),
		Labels: maps.Clone(src.GetLabels()), Annotations: maps.Clone(src.GetAnnotations()),
	}
	if meta.Labels == nil {
		meta.Labels = map[string]string{}
	}
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	delete(meta.Annotations, corev1.LastAppliedConfigAnnotation)
	meta.Labels[multiclusterv1alpha1.LabelManagedBy] = multiclusterv1alpha1.ManagedByMeridian
	meta.Labels[multiclusterv1alpha1.LabelDependency] = "true"
	meta.Annotations[multiclusterv1alpha1.AnnotationUsedBy] = strings.Join(users, ",")
	meta.Annotations[multiclusterv1alpha1.AnnotationSourceVersion] = src.GetResourceVersion()
	switch s := src.(type) {
	case *corev1.ConfigMap:
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta,
			Data: s.Data, BinaryData: s.BinaryData, Immutable: s.Immutable}, nil
	case *corev1.Secret:
		if s.Type == corev1.SecretTypeServiceAccountToken {
			return nil, fmt.Errorf("secret %s is a ServiceAccount token, valid only in the cluster that issued it: %w", klog.KObj(s), ErrNotCopyable)
		}
		return &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta,
			Type: s.Type, Data: s.Data, Immutable: s.Immutable}, nil
	case *corev1.ServiceAccount:
		return &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta,
			ImagePullSecrets: s.ImagePullSecrets, AutomountServiceAccountToken: s.AutomountServiceAccountToken}, nil
	case *corev1.PersistentVolumeClaim:
		return &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}, ObjectMeta: meta,
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: s.Spec.AccessModes, Resources: s.Spec.Resources, Selector: s.Spec.Selector,
				StorageClassName: s.Spec.StorageClassName, VolumeMode: s.Spec.VolumeMode, VolumeAttributesClassName: s.Spec.VolumeAttributesClassName,
			}}, nil
	}
	return nil, fmt.Errorf("%T %s: %w", src, klog.KObj(src), ErrNotCopyable)
}

// IsDependency reports whether obj is a copy Dependency made.
func IsDependency(obj metav1.Object) bool {
	l := obj.GetLabels()
	return l[multiclusterv1alpha1.LabelManagedBy] == multiclusterv1alpha1.ManagedByMeridian && l[multiclusterv1alpha1.LabelDependency] == "true"
}
