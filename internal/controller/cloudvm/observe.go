package cloudvm

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/vmrender"
)

// render renders the VM's decision into its provider objects, each with
// the VM's label; nil without a decision.
func render(vm *computev1alpha1.CloudVM) ([]*unstructured.Unstructured, error) {
	if vm.Spec.Schedule == nil {
		return nil, nil
	}
	d := vm.Spec.Schedule.Decision
	in := vmrender.Input{
		Name:         vm.Name,
		Namespace:    vm.Namespace,
		Provider:     string(d.Provider),
		Region:       d.Region,
		InstanceType: d.InstanceType,
		Image:        string(vm.Spec.Image),
		SSHPublicKey: vm.Spec.SSHPublicKey,
		Labels:       map[string]string{computev1alpha1.LabelCloudVM: vm.Name},
	}
	if vm.Spec.CredentialsSecretRef != nil {
		in.CredentialsSecretName = vm.Spec.CredentialsSecretRef.Name
	}
	objs, err := vmrender.Render(in)
	if err != nil {
		return nil, fmt.Errorf("failed to render the %s objects of CloudVM %s/%s: %w", d.Provider, vm.Namespace, vm.Name, err)
	}
	for _, o := range objs {
		// The label is how the controller finds its objects again: it is
		// set here whatever the chart does.
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[computev1alpha1.LabelCloudVM] = vm.Name
		o.SetLabels(labels)
		o.SetNamespace(vm.Namespace)
	}
	return objs, nil
}

// observe lists the provider objects with the VM's label in its namespace,
// of every kind it renders to or recorded, from the API server; a kind whose
// CRD is not installed has none. They come in the order of rendered, then
// of the record.
func (r *Reconciler) observe(ctx context.Context, vm *computev1alpha1.CloudVM, rendered []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var kinds []schema.GroupVersionKind
	for _, o := range rendered {
		kinds = append(kinds, o.GroupVersionKind())
	}
	for _, o := range vm.Status.Objects {
		kinds = append(kinds, schema.FromAPIVersionAndKind(o.APIVersion, o.Kind))
	}
	var seen []schema.GroupKind
	var out []*unstructured.Unstructured
	for _, gvk := range kinds {
		if slices.Contains(seen, gvk.GroupKind()) {
			continue
		}
		seen = append(seen, gvk.GroupKind())
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := r.APIReader.List(ctx, list, client.InNamespace(vm.Namespace), client.MatchingLabels{computev1alpha1.LabelCloudVM: vm.Name})
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("failed to list %s: %w", gvk.GroupKind(), err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
	}
	// Within a kind, the rendered order (owners first), so that deletion
	// goes dependents first.
	order := func(o *unstructured.Unstructured) int {
		for i, w := range rendered {
			if key(w) == key(o) {
				return i
			}
		}
		return len(rendered)
	}
	slices.SortStableFunc(out, func(a, b *unstructured.Unstructured) int { return order(a) - order(b) })
	return out, nil
}

// key names a provider object for the decision.
func key(o *unstructured.Unstructured) decide.VMObjectKey {
	return decide.VMObjectKey{Group: o.GroupVersionKind().Group, Kind: o.GetKind(), Name: o.GetName()}
}

// recordedKey is key for an entry of status.objects.
func recordedKey(o computev1alpha1.RenderedObject) decide.VMObjectKey {
	return decide.VMObjectKey{Group: schema.FromAPIVersionAndKind(o.APIVersion, o.Kind).Group, Kind: o.Kind, Name: o.Name}
}

// input is what decide.VM needs of the VM and its objects.
func input(vm *computev1alpha1.CloudVM, rendered []*unstructured.Unstructured, renderErr error, existing []*unstructured.Unstructured, now time.Time, timing decide.VMTiming) decide.VMInput {
	in := decide.VMInput{
		Phase:    vm.Status.Phase,
		Deleting: !vm.DeletionTimestamp.IsZero(),
		Now:      now,
		Timing:   timing,
	}
	if s := vm.Spec.Schedule; s != nil {
		d := s.Decision
		in.Decided, in.Start, in.End = true, d.Start.Time, d.End.Time
		in.Where = fmt.Sprintf("%s/%s, %s", d.Provider, d.Region, d.InstanceType)
		in.Fallback = d.Fallback
	}
	if vm.Spec.Deadline != nil {
		in.Deadline = vm.Spec.Deadline.Time
	}
	if t := vm.Status.StartedTime; t != nil {
		in.Started = t.Time
	}
	if t := vm.Status.CompletedTime; t != nil {
		in.Completed = t.Time
	}
	if renderErr != nil {
		in.RenderError = renderErr.Error()
	}
	for _, o := range rendered {
		in.Rendered = append(in.Rendered, key(o))
	}
	for _, o := range vm.Status.Objects {
		in.Recorded = append(in.Recorded, recordedKey(o))
	}
	for _, o := range existing {
		ready, msg := vmrender.Ready(o)
		in.Existing = append(in.Existing, decide.VMObject{
			Key: key(o), Created: o.GetCreationTimestamp().Time, Deleting: !o.GetDeletionTimestamp().IsZero(), Ready: ready, Message: msg,
		})
	}
	return in
}
