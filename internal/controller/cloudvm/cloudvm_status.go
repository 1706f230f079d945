package cloudvm

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/decide"
)

// maxObjectMessage bounds an object's message in status.objects.
const maxObjectMessage = 1024

// report writes the pass into the VM's status: phase, conditions, the
// provider objects, and the start and completion times once they happened.
// It returns the events that announce the conditions whose reason or status
// changed; the caller sends them once the status is written, so a pass that
// read a stale copy and fails to write announces nothing twice.
func report(vm *computev1alpha1.CloudVM, p *decide.VMPlan, a acted, rendered, existing []*unstructured.Unstructured) []announcement {
	st := &vm.Status
	var out []announcement
	setCondition(vm, computev1alpha1.ConditionScheduled, p.Scheduled, &out)
	applied := decide.VMApplied{Applied: a.applied, Started: st.StartedTime != nil, Existing: len(existing)}
	if a.applyErr != nil {
		applied.ApplyError = a.applyErr.Error()
	}
	o := decide.VMReport(p, applied)
	if o.Ready != nil {
		setCondition(vm, computev1alpha1.ConditionReady, *o.Ready, &out)
	}
	if o.Keep {
		return out
	}
	if o.Reapplied > 0 {
		out = append(out, announcement{reason: computev1alpha1.ReasonProvisioning, action: "Apply", message: fmt.Sprintf("re-applied %d provider objects that had gone missing", o.Reapplied)})
	}
	st.Phase = p.Phase
	if p.Objects != nil {
		st.Objects = objects(p.Objects, apiVersions(vm, rendered, existing))
	}
	if !p.Started.IsZero() && st.StartedTime == nil {
		st.StartedTime = &metav1.Time{Time: p.Started}
	}
	if !p.Completed.IsZero() && st.CompletedTime == nil {
		st.CompletedTime = &metav1.Time{Time: p.Completed}
	}
	return out
}

// announcement is an event a pass sends about its CloudVM.
type announcement struct {
	warning                 bool
	reason, action, message string
}

// setCondition sets a condition and, when its status or reason changed,
// adds the event that announces it to out.
func setCondition(vm *computev1alpha1.CloudVM, kind string, c decide.VMCondition, out *[]announcement) {
	old := meta.FindStatusCondition(vm.Status.Conditions, kind)
	changed := old == nil || old.Reason != c.Reason || (old.Status == metav1.ConditionTrue) != c.Status
	conditions.Set(&vm.Status.Conditions, vm.Generation, kind, c.Status, c.Reason, c.Message)
	if changed {
		*out = append(*out, announcement{warning: c.Warning, reason: c.Reason, action: kind, message: c.Message})
	}
}

// announce sends the events of a pass.
func (r *Reconciler) announce(vm *computev1alpha1.CloudVM, events []announcement) {
	for _, e := range events {
		r.event(vm, e.warning, e.reason, e.action, "%s", e.message)
	}
}

// event records an event about vm: a warning when warning is set.
func (r *Reconciler) event(vm *computev1alpha1.CloudVM, warning bool, reason, action, format string, args ...any) {
	if r.Recorder == nil {
		return
	}
	kind := corev1.EventTypeNormal
	if warning {
		kind = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(vm, nil, kind, reason, action, format, args...)
}

// apiVersions maps every object the pass knows of to its apiVersion: as
// rendered, as found, or as recorded.
func apiVersions(vm *computev1alpha1.CloudVM, rendered, existing []*unstructured.Unstructured) map[decide.VMObjectKey]string {
	out := map[decide.VMObjectKey]string{}
	for _, o := range vm.Status.Objects {
		out[recordedKey(o)] = o.APIVersion
	}
	for _, objs := range [][]*unstructured.Unstructured{existing, rendered} {
		for _, o := range objs {
			out[key(o)] = o.GetAPIVersion()
		}
	}
	return out
}

// objects is status.objects for the decision's report.
func objects(objs []decide.VMObjectStatus, versions map[decide.VMObjectKey]string) []computev1alpha1.RenderedObject {
	out := make([]computev1alpha1.RenderedObject, 0, len(objs))
	for _, o := range objs {
		out = append(out, computev1alpha1.RenderedObject{
			APIVersion: versions[o.Key], Kind: o.Key.Kind, Name: o.Key.Name,
			Ready: o.Ready, Message: conditions.Truncate(o.Message, maxObjectMessage),
		})
	}
	return out
}
