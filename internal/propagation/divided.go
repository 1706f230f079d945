package propagation

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// divided are the kinds whose spec.replicas are divided over the members
// (each member's copy runs its share), with their pod template at
// spec.template.
var divided = map[schema.GroupKind]func() client.Object{
	{Group: "apps", Kind: "Deployment"}:  func() client.Object { return &appsv1.Deployment{} },
	{Group: "apps", Kind: "StatefulSet"}: func() client.Object { return &appsv1.StatefulSet{} },
	{Group: "apps", Kind: "ReplicaSet"}:  func() client.Object { return &appsv1.ReplicaSet{} },
}

// Divided reports whether gk's replicas are divided over the members
// rather than the object copied whole.
func Divided(gk schema.GroupKind) bool {
	_, ok := divided[gk]
	return ok
}

// NewDivided returns an empty member workload of gvk to read into, with
// its apiVersion and kind set; nil when gvk's replicas are not divided.
func NewDivided(gvk schema.GroupVersionKind) client.Object {
	n, ok := divided[gvk.GroupKind()]
	if !ok {
		return nil
	}
	obj := n()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj
}

// Replicas is what a member workload says of its replicas.
type Replicas struct {
	// Spec is spec.replicas (1 when unset, as the API server defaults it).
	Spec int32
	// Current is status.replicas: the pods the member's controller made.
	Current int32
	// Ready, Available and Updated are the status counts. A ReplicaSet
	// does not replace its pods when its template changes, so all of its
	// replicas count as updated, as they do in one cluster.
	Ready, Available, Updated int32
	// CaughtUp is whether the member's controller observed the current
	// spec.
	CaughtUp bool
}

// ReplicasOf reads a member workload's replicas; ok is false for an object
// whose replicas are not divided.
func ReplicasOf(obj client.Object) (r Replicas, ok bool) {
	spec := func(p *int32) int32 {
		if p == nil {
			return 1
		}
		return *p
	}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return Replicas{Spec: spec(o.Spec.Replicas), Current: o.Status.Replicas, Ready: o.Status.ReadyReplicas, Available: o.Status.AvailableReplicas,
			Updated: o.Status.UpdatedReplicas, CaughtUp: o.Status.ObservedGeneration >= o.Generation}, true
	case *appsv1.StatefulSet:
		return Replicas{Spec: spec(o.Spec.Replicas), Current: o.Status.Replicas, Ready: o.Status.ReadyReplicas, Available: o.Status.AvailableReplicas,
			Updated: o.Status.UpdatedReplicas, CaughtUp: o.Status.ObservedGeneration >= o.Generation}, true
	case *appsv1.ReplicaSet:
		return Replicas{Spec: spec(o.Spec.Replicas), Current: o.Status.Replicas, Ready: o.Status.ReadyReplicas, Available: o.Status.AvailableReplicas,
			Updated: o.Status.Replicas, CaughtUp: o.Status.ObservedGeneration >= o.Generation}, true
	}
	return Replicas{}, false
}

// DividedCopy returns a member's copy of a divided template holding
// replicas: Copy's, with spec.replicas set, the owner's labels on the pod
// template too (so that its pods are traced back), and generation stamped
// as the one it was made from (the pass's, which changes with the
// template's and with its policy's).
func DividedCopy(tpl *unstructured.Unstructured, owner Owner, generation int64, replicas int32) (*unstructured.Unstructured, error) {
	if !Divided(tpl.GroupVersionKind().GroupKind()) {
		return nil, fmt.Errorf("%s %s: the replicas of a %s are not divided", tpl.GetKind(), klog.KObj(tpl), tpl.GetKind())
	}
	out, err := Copy(tpl, owner)
	if err != nil {
		return nil, err
	}
	owner.stamp(out, generation)
	if err := unstructured.SetNestedField(out.Object, int64(replicas), "spec", "replicas"); err != nil {
		return nil, fmt.Errorf("%s %s: spec.replicas: %w", tpl.GetKind(), klog.KObj(tpl), err)
	}
	labels, _, err := unstructured.NestedStringMap(out.Object, "spec", "template", "metadata", "labels")
	if err != nil {
		return nil, fmt.Errorf("%s %s: spec.template.metadata.labels: %w", tpl.GetKind(), klog.KObj(tpl), err)
	}
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, owner.Labels())
	if err := unstructured.SetNestedStringMap(out.Object, labels, "spec", "template", "metadata", "labels"); err != nil {
		return nil, fmt.Errorf("%s %s: spec.template.metadata.labels: %w", tpl.GetKind(), klog.KObj(tpl), err)
	}
	return out, nil
}

// jobSelectorLabels are the labels the API server puts on a Job's pod
// template (and in its generated selector) that name the Job in the
// cluster that made it; a member's copy must get its own.
var jobSelectorLabels = []string{"controller-uid", batchv1.ControllerUidLabel, "job-name", batchv1.JobNameLabel}

// JobCopy returns a member's copy of a plain Job running parallelism pods
// for completions (nil: the Job has none): Copy's, with the owner's labels
// on the pod template, without the selector and labels the management
// cluster's API server generated for it (unless spec.manualSelector), which
// the member's generates anew, and without ttlSecondsAfterFinished.
func JobCopy(tpl *unstructured.Unstructured, owner Owner, parallelism int32, completions *int32) (*unstructured.Unstructured, error) {
	if tpl.GroupVersionKind().GroupKind() != (schema.GroupKind{Group: "batch", Kind: "Job"}) {
		return nil, fmt.Errorf("%s %s is not a Job", tpl.GetKind(), klog.KObj(tpl))
	}
	out, err := Copy(tpl, owner)
	if err != nil {
		return nil, err
	}
	labels, _, err := unstructured.NestedStringMap(out.Object, "spec", "template", "metadata", "labels")
	if err != nil {
		return nil, fmt.Errorf("job %s: spec.template.metadata.labels: %w", klog.KObj(tpl), err)
	}
	if labels == nil {
		labels = map[string]string{}
	}
	if manual, _, _ := unstructured.NestedBool(out.Object, "spec", "manualSelector"); !manual {
		unstructured.RemoveNestedField(out.Object, "spec", "selector")
		for _, k := range jobSelectorLabels {
			delete(labels, k)
		}
	}
	maps.Copy(labels, owner.Labels())
	if err := unstructured.SetNestedStringMap(out.Object, labels, "spec", "template", "metadata", "labels"); err != nil {
		return nil, fmt.Errorf("job %s: spec.template.metadata.labels: %w", klog.KObj(tpl), err)
	}
	if err := unstructured.SetNestedField(out.Object, int64(parallelism), "spec", "parallelism"); err != nil {
		return nil, fmt.Errorf("job %s: spec.parallelism: %w", klog.KObj(tpl), err)
	}
	// A member Job its TTL deleted would look to the next pass like a share
	// never placed, and run again: member Jobs go with the placement.
	unstructured.RemoveNestedField(out.Object, "spec", "ttlSecondsAfterFinished")
	if completions == nil {
		unstructured.RemoveNestedField(out.Object, "spec", "completions")
	} else if err := unstructured.SetNestedField(out.Object, int64(*completions), "spec", "completions"); err != nil {
		return nil, fmt.Errorf("job %s: spec.completions: %w", klog.KObj(tpl), err)
	}
	return out, nil
}
