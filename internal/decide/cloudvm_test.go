package decide_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/decide"
)

// vmOutcome is what a test compares of a VMPlan: everything but the
// condition messages, which are checked for what they must name.
type vmOutcome struct {
	Phase           computev1alpha1.CloudVMPhase
	Scheduled       string
	Ready           string
	ReadyTrue       bool
	Warning         bool
	Apply           []decide.VMObjectKey
	Delete          []decide.VMObjectKey
	Objects         []decide.VMObjectStatus
	Started         time.Time
	Completed       time.Time
	End             time.Time
	RemoveFinalizer bool
	RequeueAfter    time.Duration
}

func vmOutcomeOf(p *decide.VMPlan) vmOutcome {
	o := vmOutcome{
		Phase: p.Phase, Scheduled: p.Scheduled.Reason, Apply: p.Apply, Delete: p.Delete, Objects: p.Objects,
		Started: p.Started, Completed: p.Completed, End: p.End, RemoveFinalizer: p.RemoveFinalizer, RequeueAfter: p.RequeueAfter,
	}
	if p.Ready != nil {
		o.Ready, o.ReadyTrue, o.Warning = p.Ready.Reason, p.Ready.Status, p.Ready.Warning
	}
	return o
}

func TestVM(t *testing.T) {
	start := time.Date(2026, 3, 20, 10, 0, 0, 0, time.UTC)
	const run = 2 * time.Hour
	end := start.Add(run)
	timing := decide.VMTiming{StartSlack: 5 * time.Minute, Poll: 30 * time.Second}
	rg := decide.VMObjectKey{Group: "resources.azure.com", Kind: "ResourceGroup", Name: "vm"}
	vnet := decide.VMObjectKey{Group: "network.azure.com", Kind: "VirtualNetwork", Name: "vm"}
	vm := decide.VMObjectKey{Group: "compute.azure.com", Kind: "VirtualMachine", Name: "vm"}
	rendered := []decide.VMObjectKey{rg, vnet, vm}
	obj := func(k decide.VMObjectKey, created time.Time, ready bool) decide.VMObject {
		o := decide.VMObject{Key: k, Created: created, Ready: ready, Message: "Reconciling"}
		if ready {
			o.Message = "Succeeded"
		}
		return o
	}
	all := func(created time.Time, ready bool) []decide.VMObject {
		return []decide.VMObject{obj(rg, created, ready), obj(vnet, created, ready), obj(vm, created, ready)}
	}
	applied := func() []decide.VMObjectStatus {
		var out []decide.VMObjectStatus
		for _, k := range rendered {
			out = append(out, decide.VMObjectStatus{Key: k, Message: "applied; waiting for its operator"})
		}
		return out
	}
	reported := func(ready bool, msg string) []decide.VMObjectStatus {
		var out []decide.VMObjectStatus
		for _, k := range rendered {
			out = append(out, decide.VMObjectStatus{Key: k, Ready: ready, Message: msg})
		}
		return out
	}
	reversed := []decide.VMObjectKey{vm, vnet, rg}
	// base is a VM decided to run from start to end, with nothing done yet.
	base := func(now time.Time) decide.VMInput {
		return decide.VMInput{
			Decided: true, Start: start, End: end, Where: "azure/westeurope, Standard_D2s_v5",
			Phase: computev1alpha1.PhaseScheduled, Rendered: rendered, Now: now, Timing: timing,
		}
	}
	with := func(in decide.VMInput, f func(*decide.VMInput)) decide.VMInput {
		f(&in)
		return in
	}
	decided := computev1alpha1.ReasonDecided

	tests := []struct {
		name string
		in   decide.VMInput
		want vmOutcome
		// says are words the Ready condition's message must hold.
		says []string
	}{{
		name: "no decision: Unschedulable, Scheduled False saying to install the webhook",
		in:   decide.VMInput{Phase: "", Now: start, Timing: timing},
		want: vmOutcome{Phase: computev1alpha1.PhaseUnschedulable, Scheduled: computev1alpha1.ReasonNoDecision},
	}, {
		name: "before the start: Waiting, requeued for exactly the start",
		in:   base(start.Add(-90*time.Minute - 250*time.Millisecond)),
		want: vmOutcome{Phase: computev1alpha1.PhaseWaiting, Scheduled: decided, Ready: computev1alpha1.ReasonWaitingForStart, RequeueAfter: 90*time.Minute + 250*time.Millisecond},
	}, {
		name: "a forecast fallback is said in Scheduled",
		in:   with(base(start.Add(-time.Minute)), func(in *decide.VMInput) { in.Fallback = "no forecast for NL: started at once" }),
		want: vmOutcome{Phase: computev1alpha1.PhaseWaiting, Scheduled: computev1alpha1.ReasonForecastFallback, Ready: computev1alpha1.ReasonWaitingForStart, RequeueAfter: time.Minute},
	}, {
		name: "exactly at the start: every rendered object is applied, the run ends a duration later",
		in:   base(start),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseProvisioning, Scheduled: decided, Ready: computev1alpha1.ReasonProvisioning,
			Apply: rendered, Objects: applied(), Started: start, End: end, RequeueAfter: timing.Poll,
		},
	}, {
		name: "a late start within the slack starts now and keeps the whole duration, saying how late",
		in:   base(start.Add(4 * time.Minute)),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseProvisioning, Scheduled: decided, Ready: computev1alpha1.ReasonProvisioning,
			Apply: rendered, Objects: applied(), Started: start.Add(4 * time.Minute), End: end.Add(4 * time.Minute), RequeueAfter: timing.Poll,
		},
		says: []string{"4m0s after the planned start"},
	}, {
		name: "a start later than the slack is Failed, not started late",
		in:   base(start.Add(5*time.Minute + time.Second)),
		want: vmOutcome{Phase: computev1alpha1.PhaseFailed, Scheduled: decided, Ready: computev1alpha1.ReasonStartMissed, Warning: true},
		says: []string{"not started late", "nothing was created"},
	}, {
		name: "a controller that comes up after the planned end fails the VM",
		in:   base(end.Add(time.Hour)),
		want: vmOutcome{Phase: computev1alpha1.PhaseFailed, Scheduled: decided, Ready: computev1alpha1.ReasonStartMissed, Warning: true},
	}, {
		name: "a controller down at the start: the run now ends after the deadline, so the VM fails without anything created",
		in:   with(base(start.Add(time.Minute)), func(in *decide.VMInput) { in.Deadline = end.Add(30 * time.Second) }),
		want: vmOutcome{Phase: computev1alpha1.PhaseFailed, Scheduled: decided, Ready: computev1alpha1.ReasonDeadlineMissed, Warning: true},
		says: []string{"after the deadline 2026-03-20T12:00:30Z", "nothing was created"},
	}, {
		name: "a decision that ends after the deadline fails at once, before its start",
		in:   with(base(start.Add(-time.Hour)), func(in *decide.VMInput) { in.Deadline = end.Add(-time.Second) }),
		want: vmOutcome{Phase: computev1alpha1.PhaseFailed, Scheduled: decided, Ready: computev1alpha1.ReasonDeadlineMissed, Warning: true},
	}, {
		name: "a late start that still ends by the deadline starts",
		in:   with(base(start.Add(30*time.Second)), func(in *decide.VMInput) { in.Deadline = end.Add(30 * time.Second) }),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseProvisioning, Scheduled: decided, Ready: computev1alpha1.ReasonProvisioning,
			Apply: rendered, Objects: applied(), Started: start.Add(30 * time.Second), End: end.Add(30 * time.Second), RequeueAfter: timing.Poll,
		},
	}, {
		name: "a start a fraction of a second late is on time, and meets a deadline at exactly the planned end",
		in:   with(base(start.Add(300*time.Millisecond)), func(in *decide.VMInput) { in.Deadline = end }),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseProvisioning, Scheduled: decided, Ready: computev1alpha1.ReasonProvisioning,
			Apply: rendered, Objects: applied(), Started: start, End: end, RequeueAfter: timing.Poll,
		},
		says: []string{"300ms after the planned start"},
	}, {
		name: "a start a second late misses a deadline at exactly the planned end",
		in:   with(base(start.Add(time.Second)), func(in *decide.VMInput) { in.Deadline = end }),
		want: vmOutcome{Phase: computev1alpha1.PhaseFailed, Scheduled: decided, Ready: computev1alpha1.ReasonDeadlineMissed, Warning: true},
	}, {
		name: "objects that cannot be rendered fail the VM before its start, with nothing created",
		in:   with(base(start.Add(-time.Hour)), func(in *decide.VMInput) { in.Rendered, in.RenderError = nil, `region "mars-1" is not an Azure region` }),
		want: vmOutcome{Phase: computev1alpha1.PhaseFailed, Scheduled: decided, Ready: computev1alpha1.ReasonRenderFailed, Warning: true},
		says: []string{"mars-1"},
	}, {
		name: "after the start, objects not all ready: Provisioning, nothing applied again",
		in: with(base(start.Add(time.Minute)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Phase = start, rendered, computev1alpha1.PhaseProvisioning
			in.Existing = []decide.VMObject{obj(rg, start, true), obj(vnet, start, true), obj(vm, start, false)}
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseProvisioning, Scheduled: decided, Ready: computev1alpha1.ReasonProvisioning,
			Objects: []decide.VMObjectStatus{{Key: rg, Ready: true, Message: "Succeeded"}, {Key: vnet, Ready: true, Message: "Succeeded"}, {Key: vm, Message: "Reconciling"}},
			Started: start, End: end, RequeueAfter: timing.Poll,
		},
		says: []string{"2 of 3 provider objects ready", "VirtualMachine/vm: Reconciling"},
	}, {
		name: "every object ready: Running",
		in: with(base(start.Add(10*time.Minute)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Existing, in.Phase = start, rendered, all(start, true), computev1alpha1.PhaseProvisioning
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseRunning, Scheduled: decided, Ready: computev1alpha1.ReasonRunning, ReadyTrue: true,
			Objects: reported(true, "Succeeded"), Started: start, End: end, RequeueAfter: timing.Poll,
		},
	}, {
		name: "a restart mid-run neither re-applies nor deletes, and is requeued for the end",
		in: with(base(end.Add(-10*time.Second)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Existing, in.Phase = start, rendered, all(start, true), computev1alpha1.PhaseRunning
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseRunning, Scheduled: decided, Ready: computev1alpha1.ReasonRunning, ReadyTrue: true,
			Objects: reported(true, "Succeeded"), Started: start, End: end, RequeueAfter: 10 * time.Second,
		},
	}, {
		name: "a restart after the apply but before the start was recorded takes the start from the oldest object",
		in: with(base(start.Add(3*time.Second)), func(in *decide.VMInput) {
			in.Existing = []decide.VMObject{obj(rg, start.Add(time.Second), false), obj(vnet, start.Add(2*time.Second), false)}
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseProvisioning, Scheduled: decided, Ready: computev1alpha1.ReasonProvisioning,
			Apply:   []decide.VMObjectKey{vm},
			Objects: []decide.VMObjectStatus{{Key: rg, Message: "Reconciling"}, {Key: vnet, Message: "Reconciling"}, {Key: vm, Message: "does not exist"}},
			Started: start.Add(time.Second), End: end.Add(time.Second), RequeueAfter: timing.Poll,
		},
	}, {
		name: "a recorded object that went missing mid-run is applied again, alone",
		in: with(base(start.Add(time.Hour)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Phase = start, rendered, computev1alpha1.PhaseRunning
			in.Existing = []decide.VMObject{obj(rg, start, true), obj(vm, start, true)}
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseProvisioning, Scheduled: decided, Ready: computev1alpha1.ReasonProvisioning,
			Apply:   []decide.VMObjectKey{vnet},
			Objects: []decide.VMObjectStatus{{Key: rg, Ready: true, Message: "Succeeded"}, {Key: vnet, Message: "does not exist"}, {Key: vm, Ready: true, Message: "Succeeded"}},
			Started: start, End: end, RequeueAfter: timing.Poll,
		},
	}, {
		name: "a decision changed after the start does not apply a second VM elsewhere",
		in: with(base(start.Add(time.Hour)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Existing, in.Phase = start, rendered, all(start, true), computev1alpha1.PhaseRunning
			in.Rendered = []decide.VMObjectKey{{Group: "compute.cnrm.cloud.google.com", Kind: "ComputeInstance", Name: "vm"}}
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseRunning, Scheduled: decided, Ready: computev1alpha1.ReasonRunning, ReadyTrue: true,
			Objects: reported(true, "Succeeded"), Started: start, End: end, RequeueAfter: timing.Poll,
		},
	}, {
		name: "exactly at the end every object is deleted, dependents first",
		in: with(base(end), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Existing, in.Phase = start, rendered, all(start, true), computev1alpha1.PhaseRunning
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseRunning, Scheduled: decided, Ready: computev1alpha1.ReasonTearingDown,
			Delete: reversed, Objects: reported(true, "Succeeded"), Started: start, End: end, RequeueAfter: timing.Poll,
		},
	}, {
		name: "the end of a late start is its start plus the duration",
		in: with(base(end.Add(time.Minute)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Existing, in.Phase = start.Add(2*time.Minute), rendered, all(start.Add(2*time.Minute), true), computev1alpha1.PhaseRunning
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseRunning, Scheduled: decided, Ready: computev1alpha1.ReasonRunning, ReadyTrue: true,
			Objects: reported(true, "Succeeded"), Started: start.Add(2 * time.Minute), End: end.Add(2 * time.Minute), RequeueAfter: 30 * time.Second,
		},
	}, {
		name: "objects already being deleted are not deleted again; the pass comes back to see them gone",
		in: with(base(end.Add(5*time.Second)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Phase = start, rendered, computev1alpha1.PhaseRunning
			in.Existing = all(start, true)
			in.Existing[2].Deleting = true
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseRunning, Scheduled: decided, Ready: computev1alpha1.ReasonTearingDown,
			Delete:  []decide.VMObjectKey{vnet, rg},
			Objects: []decide.VMObjectStatus{{Key: rg, Ready: true, Message: "Succeeded"}, {Key: vnet, Ready: true, Message: "Succeeded"}, {Key: vm, Message: "being deleted"}},
			Started: start, End: end, RequeueAfter: timing.Poll,
		},
	}, {
		name: "once the objects are gone after the end the VM is Completed",
		in: with(base(end.Add(40*time.Second)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Phase = start, rendered, computev1alpha1.PhaseRunning
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseCompleted, Scheduled: decided, Ready: computev1alpha1.ReasonCompleted,
			Objects: reported(false, "deleted"), Started: start, Completed: end.Add(40 * time.Second), End: end,
		},
	}, {
		name: "a Completed VM stays Completed and is not started again",
		in: with(base(end.Add(time.Hour)), func(in *decide.VMInput) {
			in.Started, in.Completed, in.Recorded, in.Phase = start, end, rendered, computev1alpha1.PhaseCompleted
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseCompleted, Scheduled: decided, Ready: computev1alpha1.ReasonCompleted,
			Objects: reported(false, "deleted"), Started: start, Completed: end, End: end,
		},
	}, {
		name: "a CloudVM deleted while running deletes its objects first and keeps its finalizer",
		in: with(base(start.Add(time.Hour)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Existing, in.Phase, in.Deleting = start, rendered, all(start, true), computev1alpha1.PhaseRunning, true
		}),
		want: vmOutcome{
			Phase: computev1alpha1.PhaseRunning, Scheduled: decided, Ready: computev1alpha1.ReasonDeleting,
			Delete: reversed, Objects: reported(true, "Succeeded"), Started: start, End: end, RequeueAfter: timing.Poll,
		},
	}, {
		name: "a deleted CloudVM whose objects are gone lets its finalizer go",
		in: with(base(start.Add(time.Hour)), func(in *decide.VMInput) {
			in.Started, in.Recorded, in.Phase, in.Deleting = start, rendered, computev1alpha1.PhaseRunning, true
		}),
		want: vmOutcome{Phase: computev1alpha1.PhaseRunning, Scheduled: decided, Started: start, End: end, RemoveFinalizer: true},
	}, {
		name: "a CloudVM deleted before its start goes at once, and nothing is created",
		in:   with(base(start.Add(-time.Hour)), func(in *decide.VMInput) { in.Phase, in.Deleting = computev1alpha1.PhaseWaiting, true }),
		want: vmOutcome{Phase: computev1alpha1.PhaseWaiting, Scheduled: decided, RemoveFinalizer: true},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := decide.VM(tc.in)
			if diff := cmp.Diff(tc.want, vmOutcomeOf(p), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("VM() (-want +got):\n%s", diff)
			}
			for _, s := range tc.says {
				if p.Ready == nil || !strings.Contains(p.Ready.Message, s) {
					t.Errorf("VM() Ready = %+v, want a message with %q", p.Ready, s)
				}
			}
		})
	}
}

// TestVMLifecycle runs one VM through its life in virtual time, each pass
// at the time the last one asked to be requeued for, as the controller does.
func TestVMLifecycle(t *testing.T) {
	start := time.Date(2026, 3, 20, 10, 0, 0, 0, time.UTC)
	keys := []decide.VMObjectKey{{Group: "ec2.services.k8s.aws", Kind: "Instance", Name: "vm"}}
	in := decide.VMInput{
		Decided: true, Start: start, End: start.Add(time.Hour), Rendered: keys,
		Now: start.Add(-2 * time.Hour), Timing: decide.VMTiming{StartSlack: time.Minute, Poll: 20 * time.Minute},
	}
	var existing []decide.VMObject
	type step struct {
		Now   time.Time
		Phase computev1alpha1.CloudVMPhase
		Apply int
		Del   int
	}
	var got []step
	for range 10 {
		in.Existing = existing
		p := decide.VM(in)
		got = append(got, step{Now: in.Now, Phase: p.Phase, Apply: len(p.Apply), Del: len(p.Delete)})
		// The operator makes the instance ready 5 minutes after the apply;
		// its deletion takes effect at once.
		if len(p.Apply) > 0 {
			existing = []decide.VMObject{{Key: keys[0], Created: in.Now}}
		}
		if len(p.Delete) > 0 {
			existing = nil
		}
		in.Phase, in.Started, in.Completed = p.Phase, p.Started, p.Completed
		for _, o := range p.Objects {
			in.Recorded = append(in.Recorded[:0], o.Key)
		}
		if p.RequeueAfter == 0 {
			break
		}
		in.Now = in.Now.Add(p.RequeueAfter)
		for i := range existing {
			existing[i].Ready = !in.Now.Before(existing[i].Created.Add(5 * time.Minute))
		}
	}
	want := []step{
		{Now: start.Add(-2 * time.Hour), Phase: computev1alpha1.PhaseWaiting},
		{Now: start, Phase: computev1alpha1.PhaseProvisioning, Apply: 1},
		{Now: start.Add(20 * time.Minute), Phase: computev1alpha1.PhaseRunning},
		{Now: start.Add(40 * time.Minute), Phase: computev1alpha1.PhaseRunning},
		{Now: start.Add(60 * time.Minute), Phase: computev1alpha1.PhaseRunning, Del: 1},
		{Now: start.Add(80 * time.Minute), Phase: computev1alpha1.PhaseCompleted},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("passes (-want +got):\n%s", diff)
	}
}

func TestVMReport(t *testing.T) {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	running := &decide.VMCondition{Status: true, Reason: computev1alpha1.ReasonRunning}
	tests := []struct {
		name    string
		plan    decide.VMPlan
		applied decide.VMApplied
		want    decide.VMOutcome
	}{{
		name:    "a start whose applies all failed is not a start: the status stays, Ready says why",
		plan:    decide.VMPlan{Started: start, Ready: running},
		applied: decide.VMApplied{ApplyError: "failed to apply ResourceGroup web: forbidden"},
		want:    decide.VMOutcome{Keep: true, Ready: &decide.VMCondition{Reason: computev1alpha1.ReasonApplyFailed, Message: "failed to apply ResourceGroup web: forbidden", Warning: true}},
	}, {
		name:    "a start that rendered nothing is not a start either",
		plan:    decide.VMPlan{Started: start},
		applied: decide.VMApplied{},
		want:    decide.VMOutcome{Keep: true, Ready: &decide.VMCondition{Reason: computev1alpha1.ReasonApplyFailed, Message: "the decision rendered no provider objects", Warning: true}},
	}, {
		name:    "a start whose first applies succeeded has started, and Ready reports the failed one",
		plan:    decide.VMPlan{Started: start, Ready: running},
		applied: decide.VMApplied{Applied: 2, ApplyError: "failed to apply VirtualMachine web: conflict"},
		want:    decide.VMOutcome{Ready: &decide.VMCondition{Reason: computev1alpha1.ReasonApplyFailed, Message: "failed to apply VirtualMachine web: conflict", Warning: true}},
	}, {
		name:    "objects applied after the start had gone missing: counted as re-applied",
		plan:    decide.VMPlan{Started: start, Ready: running},
		applied: decide.VMApplied{Applied: 1, Started: true, Existing: 2},
		want:    decide.VMOutcome{Ready: running, Reapplied: 1},
	}, {
		name:    "the start's own applies are not re-applies",
		plan:    decide.VMPlan{Started: start, Ready: running},
		applied: decide.VMApplied{Applied: 3},
		want:    decide.VMOutcome{Ready: running},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, decide.VMReport(&tc.plan, tc.applied)); diff != "" {
				t.Errorf("VMReport (-want +got):\n%s", diff)
			}
		})
	}
}
