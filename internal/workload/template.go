package workload

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// templatePaths are where each kind that makes pods holds its pod
// template, by group/Kind.
var templatePaths = map[string][]string{
	"apps/Deployment":        {"spec", "template"},
	"apps/StatefulSet":       {"spec", "template"},
	"apps/ReplicaSet":        {"spec", "template"},
	"apps/DaemonSet":         {"spec", "template"},
	"batch/Job":              {"spec", "template"},
	"batch/CronJob":          {"spec", "jobTemplate", "spec", "template"},
	"/ReplicationController": {"spec", "template"},
}

// PodTemplatePath is where gvk's objects hold their pod template; nil for
// a kind that makes no pods.
func PodTemplatePath(gvk schema.GroupVersionKind) []string {
	return templatePaths[gvk.Group+"/"+gvk.Kind]
}

// PodTemplateOf returns the pod template of obj when its kind makes pods
// (Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob,
// ReplicationController), nil for any other kind. An error names the field
// that is not a pod template.
func PodTemplateOf(obj *unstructured.Unstructured) (*corev1.PodTemplateSpec, error) {
	gvk := obj.GroupVersionKind()
	path, ok := templatePaths[gvk.Group+"/"+gvk.Kind]
	if !ok {
		return nil, nil
	}
	m, found, err := unstructured.NestedMap(obj.Object, path...)
	if err != nil {
		return nil, fmt.Errorf("%s %s/%s: %v is not a pod template: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), path, err)
	}
	if !found {
		return nil, fmt.Errorf("%s %s/%s has no pod template at %v", gvk.Kind, obj.GetNamespace(), obj.GetName(), path)
	}
	t := &corev1.PodTemplateSpec{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, t); err != nil {
		return nil, fmt.Errorf("%s %s/%s: %v is not a pod template: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), path, err)
	}
	return t, nil
}
