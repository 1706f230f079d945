package decide

import (
	"fmt"
	"slices"
	"time"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
)

// VMObjectKey names one provider object of a CloudVM in the CloudVM's
// namespace. It holds the API group, not the version: an object read back
// in another version of its kind is the same object.
type VMObjectKey struct {
	Group, Kind, Name string
}

// String is "Kind/name", as messages show it.
func (k VMObjectKey) String() string { return k.Kind + "/" + k.Name }

// VMObject is one provider object of a CloudVM as the controller found it.
type VMObject struct {
	Key VMObjectKey
	// Created is the object's creation time.
	Created time.Time
	// Deleting is whether the object has a deletion timestamp.
	Deleting bool
	// Ready and Message are what its operator reports (vmrender.Ready).
	Ready   bool
	Message string
}

// VMObjectStatus is one provider object as the CloudVM's status reports it.
type VMObjectStatus struct {
	Key     VMObjectKey
	Ready   bool
	Message string
}

// VMTiming are the tolerances of the CloudVM controller.
type VMTiming struct {
	// StartSlack is how long after its planned start a VM may still be
	// started, e.g. by a controller that was restarting at the start. A VM
	// the controller reaches later than that is Failed (StartMissed), never
	// started late: its start was chosen for a carbon intensity and a price
	// that no longer hold.
	StartSlack time.Duration
	// Poll is the time between two passes while provider objects exist, so
	// that the readiness of a kind the controller does not watch, and the
	// disappearance of an object its operator deletes slowly, are seen.
	// The start and the end never wait for it: they are requeued for.
	Poll time.Duration
}

// DefaultVMTiming is the CloudVM controller's timing unless configured.
var DefaultVMTiming = VMTiming{StartSlack: 5 * time.Minute, Poll: 30 * time.Second}

// VMInput is everything one pass of a CloudVM decides on.
type VMInput struct {
	// Decided is whether the VM has a decision (spec.schedule); Start and
	// End are its bounds, and End minus Start is how long the VM runs.
	Decided    bool
	Start, End time.Time
	// Where says where the decision puts the VM ("azure/westeurope,
	// Standard_D2s_v5"), for messages; Fallback is the decision's word on
	// missing or stale forecasts, if any.
	Where    string
	Fallback string
	// Deadline is the VM's spec.deadline; zero when it has none.
	Deadline time.Time
	// Phase is the phase the status reports now.
	Phase computev1alpha1.CloudVMPhase
	// Started and Completed are status.startedTime and
	// status.completedTime; zero when not recorded.
	Started, Completed time.Time
	// Deleting is whether the CloudVM itself is being deleted.
	Deleting bool
	// Rendered are the objects the decision renders to, in the order they
	// are applied (owners first); RenderError, when not empty, says why
	// rendering failed.
	Rendered    []VMObjectKey
	RenderError string
	// Recorded are the objects status.objects lists: what the start
	// applied.
	Recorded []VMObjectKey
	// Existing are the provider objects that carry the VM's label.
	Existing []VMObject
	// Now is the time of the pass.
	Now    time.Time
	Timing VMTiming
}

// VMCondition is a condition a pass sets on the CloudVM.
type VMCondition struct {
	Status          bool
	Reason, Message string
	// Warning says the condition reports a problem; an event announcing it
	// is then a warning.
	Warning bool
}

// VMPlan is the outcome of one pass of a CloudVM.
type VMPlan struct {
	// Phase is the VM's phase after the pass.
	Phase computev1alpha1.CloudVMPhase
	// Scheduled and Ready are the conditions to set; Ready is nil when it
	// has nothing to say (the VM has no decision).
	Scheduled VMCondition
	Ready     *VMCondition
	// Apply are the rendered objects to apply, in order.
	Apply []VMObjectKey
	// Delete are the existing objects to delete.
	Delete []VMObjectKey
	// Objects are what status.objects reports; nil leaves it as it is.
	Objects []VMObjectStatus
	// Started and Completed are status.startedTime and
	// status.completedTime after the pass; zero when not reached.
	Started, Completed time.Time
	// End is when the run ends (Started plus the run's length); zero
	// before the start.
	End time.Time
	// RemoveFinalizer says every provider object of a CloudVM being
	// deleted is gone: the CloudVM may go.
	RemoveFinalizer bool
	// RequeueAfter is when to look again; zero when only a change should
	// bring the VM back.
	RequeueAfter time.Duration
}

// VM decides one pass of a CloudVM's life: wait until its start, apply its
// provider objects at the start (or within the start slack after it), report
// them Provisioning until every one is ready and Running then, delete them
// at the start the run really had plus its length, and call the VM
// Completed once they are gone. A VM whose deadline cannot be met, or whose
// start passed more than the slack ago without it being started, is Failed
// without anything being created. Every time is recomputed from the
// decision, status.startedTime and what exists, so a restarted controller
// carries on where the last one stopped: objects that exist are never
// applied again, except for those the start recorded and that went missing.
func VM(in VMInput) *VMPlan {
	p := &VMPlan{Phase: in.Phase, Started: in.Started, Completed: in.Completed}
	p.Scheduled = scheduled(in)
	existing := make(map[VMObjectKey]VMObject, len(in.Existing))
	for _, o := range in.Existing {
		existing[o.Key] = o
	}
	if p.Started.IsZero() && len(in.Existing) > 0 {
		// The objects were applied and the controller stopped before it
		// recorded the start: the oldest object tells when.
		p.Started = oldest(in.Existing)
	}
	if !p.Started.IsZero() && in.Decided {
		p.End = p.Started.Add(in.End.Sub(in.Start))
	}

	switch {
	case in.Deleting:
		return deleting(in, p, existing)
	case !in.Decided:
		if len(in.Existing) == 0 && p.Started.IsZero() {
			p.Phase = computev1alpha1.PhaseUnschedulable
			return p
		}
		// Objects exist but the decision went (it cannot be removed through
		// the webhook): without an end they are kept, and reported.
		p.Objects = report(desired(in, p), existing, absent)
		return p
	case !p.Completed.IsZero():
		return completed(in, p, existing)
	case !p.Started.IsZero() && !in.Now.Before(p.End):
		return tearDown(in, p, existing)
	case !p.Started.IsZero():
		return running(in, p, existing)
	}
	return beforeStart(in, p)
}

// scheduled is the Scheduled condition: whether the VM has a decision.
func scheduled(in VMInput) VMCondition {
	if !in.Decided {
		return VMCondition{
			Reason:  computev1alpha1.ReasonNoDecision,
			Message: "the CloudVM has no decision (spec.schedule): it was created while Meridian's CloudVM admission webhook was not installed; install the webhook and re-create the CloudVM",
			Warning: true,
		}
	}
	msg := fmt.Sprintf("%s from %s to %s", in.Where, stamp(in.Start), stamp(in.End))
	if in.Fallback != "" {
		return VMCondition{Status: true, Reason: computev1alpha1.ReasonForecastFallback, Message: msg + "; " + in.Fallback}
	}
	return VMCondition{Status: true, Reason: computev1alpha1.ReasonDecided, Message: msg}
}

// beforeStart waits for the start, starts the VM, or fails it when its
// start can no longer be kept.
func beforeStart(in VMInput, p *VMPlan) *VMPlan {
	length := in.End.Sub(in.Start)
	// Times are kept to the second, as the API stores them: a start a
	// fraction of a second after the planned one is on time, and a run
	// planned to end exactly at its deadline still meets it.
	startAt := in.Start
	if now := in.Now.Truncate(time.Second); now.After(startAt) {
		startAt = now
	}
	switch {
	case !in.Deadline.IsZero() && startAt.Add(length).After(in.Deadline):
		p.Phase = computev1alpha1.PhaseFailed
		p.Ready = &VMCondition{Reason: computev1alpha1.ReasonDeadlineMissed, Warning: true, Message: fmt.Sprintf(
			"the deadline cannot be met: starting at %s, the %s run would end at %s, after the deadline %s; nothing was created",
			stamp(startAt), length, stamp(startAt.Add(length)), stamp(in.Deadline))}
		return p
	case in.Now.Sub(in.Start) > in.Timing.StartSlack:
		p.Phase = computev1alpha1.PhaseFailed
		p.Ready = &VMCondition{Reason: computev1alpha1.ReasonStartMissed, Warning: true, Message: fmt.Sprintf(
			"the planned start %s passed %s ago, more than the start slack of %s (the controller was not running); the VM was not started late and nothing was created: re-create it for a new decision",
			stamp(in.Start), in.Now.Sub(in.Start).Round(time.Second), in.Timing.StartSlack)}
		return p
	case in.RenderError != "":
		p.Phase = computev1alpha1.PhaseFailed
		p.Ready = &VMCondition{Reason: computev1alpha1.ReasonRenderFailed, Warning: true, Message: "the provider objects cannot be rendered: " + in.RenderError}
		return p
	case in.Now.Before(in.Start):
		p.Phase = computev1alpha1.PhaseWaiting
		p.Ready = &VMCondition{Reason: computev1alpha1.ReasonWaitingForStart, Message: fmt.Sprintf("waiting for the start at %s", stamp(in.Start))}
		p.RequeueAfter = in.Start.Sub(in.Now)
		return p
	}
	p.Phase = computev1alpha1.PhaseProvisioning
	p.Started, p.End = startAt, startAt.Add(length)
	p.Apply = slices.Clone(in.Rendered)
	for _, k := range in.Rendered {
		p.Objects = append(p.Objects, VMObjectStatus{Key: k, Message: "applied; waiting for its operator"})
	}
	p.Ready = &VMCondition{Reason: computev1alpha1.ReasonProvisioning, Message: fmt.Sprintf(
		"applied %d provider objects at %s (%s after the planned start %s); the run ends at %s",
		len(in.Rendered), stamp(in.Now), in.Now.Sub(in.Start).Round(time.Millisecond), stamp(in.Start), stamp(p.End))}
	p.RequeueAfter = min(in.Timing.Poll, length)
	return p
}

// running re-applies what the start recorded and went missing, and reports
// whether every object is ready.
func running(in VMInput, p *VMPlan, existing map[VMObjectKey]VMObject) *VMPlan {
	want := desired(in, p)
	if in.RenderError == "" {
		rendered := make(map[VMObjectKey]bool, len(in.Rendered))
		for _, k := range in.Rendered {
			rendered[k] = true
		}
		for _, k := range want {
			if _, ok := existing[k]; !ok && rendered[k] {
				p.Apply = append(p.Apply, k)
			}
		}
	}
	p.Objects = report(want, existing, absent)
	ready := 0
	var first *VMObjectStatus
	for i, o := range p.Objects {
		if o.Ready {
			ready++
		} else if first == nil {
			first = &p.Objects[i]
		}
	}
	if first == nil && len(p.Objects) > 0 {
		p.Phase = computev1alpha1.PhaseRunning
		p.Ready = &VMCondition{Status: true, Reason: computev1alpha1.ReasonRunning, Message: fmt.Sprintf(
			"%d provider objects ready; the run ends at %s", ready, stamp(p.End))}
	} else {
		p.Phase = computev1alpha1.PhaseProvisioning
		msg := fmt.Sprintf("%d of %d provider objects ready", ready, len(p.Objects))
		if first != nil {
			msg += fmt.Sprintf("; %s: %s", first.Key, first.Message)
		}
		if in.RenderError != "" {
			msg += "; missing objects cannot be rendered: " + in.RenderError
		}
		p.Ready = &VMCondition{Reason: computev1alpha1.ReasonProvisioning, Message: msg + "; the run ends at " + stamp(p.End)}
	}
	p.RequeueAfter = min(in.Timing.Poll, p.End.Sub(in.Now))
	return p
}

// tearDown deletes the provider objects once the run ended, and completes
// the VM when they are gone.
func tearDown(in VMInput, p *VMPlan, existing map[VMObjectKey]VMObject) *VMPlan {
	if len(in.Existing) == 0 {
		p.Completed = in.Now
		return completed(in, p, existing)
	}
	p.Delete = deletable(in.Existing)
	p.Objects = report(desired(in, p), existing, deleted)
	if p.Phase != computev1alpha1.PhaseProvisioning && p.Phase != computev1alpha1.PhaseRunning {
		p.Phase = computev1alpha1.PhaseRunning
	}
	p.Ready = &VMCondition{Reason: computev1alpha1.ReasonTearingDown, Message: fmt.Sprintf(
		"the run ended at %s; deleting %d provider objects", stamp(p.End), len(in.Existing))}
	p.RequeueAfter = in.Timing.Poll
	return p
}

// completed reports a VM whose run is over, and deletes any object that
// reappeared with its label.
func completed(in VMInput, p *VMPlan, existing map[VMObjectKey]VMObject) *VMPlan {
	p.Phase = computev1alpha1.PhaseCompleted
	p.Objects = report(desired(in, p), existing, deleted)
	p.Ready = &VMCondition{Reason: computev1alpha1.ReasonCompleted, Message: fmt.Sprintf(
		"ran from %s to %s; its provider objects were deleted at %s", stamp(p.Started), stamp(p.End), stamp(p.Completed))}
	if len(in.Existing) > 0 {
		p.Delete = deletable(in.Existing)
		p.RequeueAfter = in.Timing.Poll
	}
	return p
}

// deleting deletes the provider objects of a CloudVM being deleted, and
// lets the CloudVM go once they are gone.
func deleting(in VMInput, p *VMPlan, existing map[VMObjectKey]VMObject) *VMPlan {
	if len(in.Existing) == 0 {
		p.RemoveFinalizer = true
		return p
	}
	p.Delete = deletable(in.Existing)
	p.Objects = report(desired(in, p), existing, deleted)
	p.Ready = &VMCondition{Reason: computev1alpha1.ReasonDeleting, Message: fmt.Sprintf(
		"the CloudVM is being deleted; deleting its %d provider objects first", len(in.Existing))}
	p.RequeueAfter = in.Timing.Poll
	return p
}

// The messages of objects that do not exist: while they should, and once
// they were deleted.
const (
	absent  = "does not exist"
	deleted = "deleted"
)

// desired are the objects the VM's status follows: what the start applied
// once it did (what a later render would give may differ if the decision
// changed, and must not start a second VM), what the decision renders
// before, and any other object found with the VM's label.
func desired(in VMInput, p *VMPlan) []VMObjectKey {
	want := in.Rendered
	if !p.Started.IsZero() && len(in.Recorded) > 0 {
		want = in.Recorded
	}
	out := slices.Clone(want)
	for _, o := range in.Existing {
		if !slices.Contains(out, o.Key) {
			out = append(out, o.Key)
		}
	}
	return out
}

// report is the status of the objects in want, as they exist; missing is
// what an object that does not exist is reported with.
func report(want []VMObjectKey, existing map[VMObjectKey]VMObject, missing string) []VMObjectStatus {
	out := make([]VMObjectStatus, 0, len(want))
	for _, k := range want {
		o, ok := existing[k]
		switch {
		case !ok:
			out = append(out, VMObjectStatus{Key: k, Message: missing})
		case o.Deleting:
			out = append(out, VMObjectStatus{Key: k, Message: "being deleted"})
		default:
			out = append(out, VMObjectStatus{Key: k, Ready: o.Ready, Message: o.Message})
		}
	}
	return out
}

// deletable are the objects not yet being deleted, dependents first (the
// reverse of the order they were applied in).
func deletable(objs []VMObject) []VMObjectKey {
	var out []VMObjectKey
	for i := len(objs) - 1; i >= 0; i-- {
		if !objs[i].Deleting {
			out = append(out, objs[i].Key)
		}
	}
	return out
}

// oldest is the earliest creation time of objs.
func oldest(objs []VMObject) time.Time {
	t := objs[0].Created
	for _, o := range objs[1:] {
		if o.Created.Before(t) {
			t = o.Created
		}
	}
	return t
}

// stamp shows t as RFC 3339 in UTC.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// VMApplied is what the applies of a pass did: how many of the plan's
// objects were applied before one failed (ApplyError), whether the VM had
// started before the pass (status.startedTime), and how many provider
// objects existed when the pass began.
type VMApplied struct {
	Applied    int
	ApplyError string
	Started    bool
	Existing   int
}

// VMOutcome is what a pass reports once its applies are done.
type VMOutcome struct {
	// Keep says the VM did not start after all: every apply of its start
	// failed and nothing exists, so phase, objects and times stay as they
	// were and only Ready reports the failure; the next pass tries again
	// within the start slack.
	Keep bool
	// Ready is the Ready condition to set; nil leaves it.
	Ready *VMCondition
	// Reapplied counts objects applied again after the start, because they
	// had gone missing.
	Reapplied int
}

// VMReport decides what a pass reports from its plan and what its applies
// did: a failed apply makes Ready report ApplyFailed (a warning); a start
// none of whose applies succeeded is not a start.
func VMReport(p *VMPlan, a VMApplied) VMOutcome {
	if !p.Started.IsZero() && !a.Started && a.Applied == 0 && a.Existing == 0 {
		msg := "the decision rendered no provider objects"
		if a.ApplyError != "" {
			msg = a.ApplyError
		}
		return VMOutcome{Keep: true, Ready: &VMCondition{Reason: computev1alpha1.ReasonApplyFailed, Message: msg, Warning: true}}
	}
	out := VMOutcome{Ready: p.Ready}
	if a.Started {
		out.Reapplied = a.Applied
	}
	if a.ApplyError != "" {
		out.Ready = &VMCondition{Reason: computev1alpha1.ReasonApplyFailed, Message: a.ApplyError, Warning: true}
	}
	return out
}
