package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/policy"
)

// A Planner decides a CloudVM's schedule at admission: the policies give the
// candidates, the scheduler picks one and a start.
type Planner struct {
	// Policies remove the regions a VM may not use.
	Policies policy.VMPolicies
	// Scheduler chooses among the regions left. Nil means no carbon
	// scheduler is configured: carbon.NoForecast decides, and the decision
	// says so in its fallback. A Reserver (*carbon.Planner) is asked to
	// preview on dry runs and replays, and its reservation is given back
	// when the request is refused after it planned.
	Scheduler carbon.Scheduler
	// Ready, when set, is called before the Scheduler plans; an error
	// refuses the request. LedgerSync.Wait holds admissions until the
	// scheduler's ledger holds the CloudVMs stored before a restart.
	Ready func(context.Context) error
}

// An Outcome says what happens to spec.schedule.
type Outcome string

// The outcomes of an admitted request.
const (
	// Planned: a new decision (CREATE).
	Planned Outcome = "Planned"
	// Replanned: a new decision for an UPDATE before the start (Day-2).
	Replanned Outcome = "Replanned"
	// Kept: the UPDATE did not touch the spec or asked for no re-plan; the
	// old decision stays as it was.
	Kept Outcome = "Kept"
)

// A Result is an admitted request's schedule.
type Result struct {
	Outcome Outcome
	// Schedule is what spec.schedule must hold; nil only when a Kept VM had
	// none (it was created while the webhook was not installed).
	Schedule *computev1alpha1.CloudVMSchedule
}

// A Denial is why a request is refused; its message is shown to the user as
// it is. Err, when set, is the error behind it (a policy or scheduler error
// such as policy.ErrInvalidInput or carbon.ErrDeadline), for errors.Is.
type Denial struct {
	Message string
	Err     error
}

func (d *Denial) Error() string { return d.Message }

// Unwrap returns the error behind the denial.
func (d *Denial) Unwrap() error { return d.Err }

func deny(format string, args ...any) error {
	return &Denial{Message: fmt.Sprintf(format, args...)}
}

// denyFor is deny with the error behind the denial, which the message
// includes.
func denyFor(err error, format string, args ...any) error {
	return &Denial{Message: fmt.Sprintf(format, args...), Err: err}
}

// timeLayout is how times appear in messages.
const timeLayout = time.RFC3339

// Admit decides the schedule of vm for an admission request of operation op
// at time now; old is the stored object on UPDATE. It returns a *Denial
// when the request must be refused. It does no I/O and reads no clock
// beyond what the policies do in memory.
func (p Planner) Admit(ctx context.Context, op admissionv1.Operation, vm, old *computev1alpha1.CloudVM, now time.Time) (Result, error) {
	// The API server stores times to the second; deciding on whole
	// seconds makes the stored decision the one that was checked.
	now = now.UTC().Truncate(time.Second)
	switch op {
	case admissionv1.Create:
		s, err := p.plan(ctx, vm, nil, now)
		if err != nil {
			return Result{}, err
		}
		return Result{Outcome: Planned, Schedule: s}, nil
	case admissionv1.Update:
		if old == nil {
			return Result{}, deny("UPDATE of CloudVM %s without its old object", key(vm))
		}
		return p.update(ctx, vm, old, now)
	default:
		return Result{}, deny("operation %q on CloudVM %s: the webhook decides on CREATE and UPDATE only", op, key(vm))
	}
}

func (p Planner) update(ctx context.Context, vm, old *computev1alpha1.CloudVM, now time.Time) (Result, error) {
	specChanged := !equality.Semantic.DeepEqual(needs(old.Spec), needs(vm.Spec))
	replanAsked := old.Annotations[computev1alpha1.AnnotationReplan] != vm.Annotations[computev1alpha1.AnnotationReplan]
	// A VM being deleted must lose its finalizers whatever its spec says.
	if (!specChanged && !replanAsked) || vm.DeletionTimestamp != nil {
		return Result{Outcome: Kept, Schedule: old.Spec.Schedule}, nil
	}
	if started, why := hasStarted(old, now); started {
		what := "its spec cannot change"
		if !specChanged {
			what = "it cannot be re-planned"
		}
		return Result{}, deny("CloudVM %s %s, so %s (moving it would delete a running VM): delete it and create a new one, or revert the change", key(vm), why, what)
	}
	s, err := p.plan(ctx, vm, old, now)
	if err != nil {
		return Result{}, err
	}
	return Result{Outcome: Replanned, Schedule: s}, nil
}

// hasStarted says whether the stored VM's start has passed, and how.
func hasStarted(old *computev1alpha1.CloudVM, now time.Time) (bool, string) {
	switch ph := old.Status.Phase; ph {
	case computev1alpha1.PhaseProvisioning, computev1alpha1.PhaseRunning, computev1alpha1.PhaseCompleted, computev1alpha1.PhaseFailed:
		return true, fmt.Sprintf("is %s", ph)
	}
	if s := old.Spec.Schedule; s != nil && !s.Decision.Start.Time.After(now) {
		return true, fmt.Sprintf("started at %s on %s/%s (it is now %s)",
			s.Decision.Start.UTC().Format(timeLayout), s.Decision.Provider, s.Decision.Region, now.Format(timeLayout))
	}
	return false, ""
}

// needs is the part of a spec a decision depends on: all of it but the
// decision itself.
func needs(s computev1alpha1.CloudVMSpec) computev1alpha1.CloudVMSpec {
	s.Schedule = nil
	return s
}

// plan decides vm's schedule; old is the stored VM on UPDATE (nil on
// CREATE), whose reservation comes back if the new plan is refused.
func (p Planner) plan(ctx context.Context, vm, old *computev1alpha1.CloudVM, now time.Time) (*computev1alpha1.CloudVMSchedule, error) {
	if p.Policies == nil {
		return nil, deny("no policy engine is configured: CloudVM %s cannot be scheduled", key(vm))
	}
	in, err := Input(vm)
	if err != nil {
		return nil, deny("CloudVM %s: %v", key(vm), err)
	}
	req, err := request(vm, now)
	if err != nil {
		return nil, err
	}
	dec, err := p.Policies.VM(ctx, in)
	if err != nil {
		return nil, denyFor(err, "CloudVM %s: the policies refused its input: %v", key(vm), err)
	}
	dec = renderable(vm, dec)
	if len(dec.Candidates) == 0 {
		return nil, deny("%s", noRegionMessage(vm, dec))
	}
	req.Candidates = dec.Candidates

	if p.Ready != nil {
		if err := p.Ready(ctx); err != nil {
			return nil, denyFor(err, "CloudVM %s cannot be scheduled yet: %v", key(vm), err)
		}
	}
	sched, fallback := p.Scheduler, ""
	if sched == nil {
		sched, fallback = carbon.NoForecast{}, "no carbon scheduler is configured; "
	}
	plan, err := sched.Schedule(req)
	switch {
	case errors.Is(err, carbon.ErrDeadline):
		return nil, denyFor(err, "CloudVM %s cannot be scheduled: none of the %d regions the policies left (%s) can run it for %s between %s and its deadline %s%s: %v",
			key(vm), len(dec.Candidates), constraints(vm), vm.Spec.Duration.Duration, req.Earliest().Format(timeLayout), req.Deadline.UTC().Format(timeLayout), pinNote(vm), err)
	case err != nil:
		return nil, denyFor(err, "CloudVM %s cannot be scheduled: the carbon scheduler failed: %v", key(vm), err)
	}
	if pin := vm.Spec.Pin; pin != nil && pin.Start != nil {
		plan.Start = pin.Start.UTC()
	}
	plan.Start = plan.Start.UTC().Truncate(time.Second)
	plan.End = plan.Start.Add(req.Duration)
	if err := checkPlan(vm, req, dec, plan); err != nil {
		p.unreserve(vm, old, now)
		return nil, err
	}
	return &computev1alpha1.CloudVMSchedule{
		Decision:    decision(plan, dec, fallback, now),
		Explanation: explanation(dec),
	}, nil
}

// request maps the VM's size and times onto the scheduler's request, and
// refuses the times no start can satisfy.
func request(vm *computev1alpha1.CloudVM, now time.Time) (carbon.Request, error) {
	s := vm.Spec
	req := carbon.Request{
		Name:        key(vm),
		CPUMilli:    s.CPU.MilliValue(),
		MemoryBytes: s.Memory.Value(),
		Duration:    s.Duration.Duration,
		Now:         now,
	}
	if req.Duration <= 0 {
		return req, deny("CloudVM %s: spec.duration %q must be greater than zero, e.g. 2h", key(vm), s.Duration.Duration)
	}
	if s.Deadline != nil {
		req.Deadline = s.Deadline.UTC()
		if end := now.Add(req.Duration); end.After(req.Deadline) && (s.Pin == nil || s.Pin.Start == nil) {
			return req, deny("CloudVM %s cannot be scheduled: spec.deadline %s is too early: starting now (%s) its %s would end at %s; move the deadline to %s or later, or shorten spec.duration",
				key(vm), req.Deadline.Format(timeLayout), now.Format(timeLayout), req.Duration, end.Format(timeLayout), end.Format(timeLayout))
		}
	}
	if s.Pin != nil && s.Pin.Start != nil {
		start := s.Pin.Start.UTC()
		if start.Before(now) {
			return req, deny("CloudVM %s: spec.pin.start %s is in the past (it is now %s): pin a later start, or remove spec.pin.start to let the scheduler choose",
				key(vm), start.Format(timeLayout), now.Format(timeLayout))
		}
		end := start.Add(req.Duration)
		if !req.Deadline.IsZero() && end.After(req.Deadline) {
			return req, deny("CloudVM %s: spec.pin.start %s plus spec.duration %s ends at %s, after spec.deadline %s",
				key(vm), start.Format(timeLayout), req.Duration, end.Format(timeLayout), req.Deadline.Format(timeLayout))
		}
		// The only start that fits between these two is the pinned one,
		// so the scheduler compares the regions at that time.
		req.NotBefore, req.Deadline = start, end
	}
	return req, nil
}

// checkPlan refuses a plan that breaks what the VM asked, whatever the
// scheduler said: the webhook never admits a start it cannot honour.
func checkPlan(vm *computev1alpha1.CloudVM, req carbon.Request, dec policy.VMDecision, plan carbon.Plan) error {
	found := false
	for _, c := range dec.Candidates {
		if c.Provider == plan.Candidate.Provider && c.Region == plan.Candidate.Region {
			found = true
			break
		}
	}
	if !found {
		return deny("CloudVM %s: the carbon scheduler chose %s/%s, which the policies did not leave", key(vm), plan.Candidate.Provider, plan.Candidate.Region)
	}
	if plan.Start.Before(req.Now) {
		return deny("CloudVM %s: the carbon scheduler chose a start %s before now (%s)", key(vm), plan.Start.Format(timeLayout), req.Now.Format(timeLayout))
	}
	if vm.Spec.Deadline != nil && plan.End.After(vm.Spec.Deadline.UTC()) {
		return deny("CloudVM %s cannot be scheduled: starting at %s it would end at %s, after spec.deadline %s",
			key(vm), plan.Start.Format(timeLayout), plan.End.Format(timeLayout), vm.Spec.Deadline.UTC().Format(timeLayout))
	}
	return nil
}

// Input maps a CloudVM onto the policies' input. CREATE and UPDATE use the
// same mapping, so the policies see the same field names in both.
func Input(vm *computev1alpha1.CloudVM) (policy.VMInput, error) {
	s := vm.Spec
	if s.CPU.Sign() <= 0 {
		return policy.VMInput{}, fmt.Errorf("spec.cpu %q must be greater than zero, e.g. \"2\"", s.CPU.String())
	}
	if s.Memory.Sign() <= 0 {
		return policy.VMInput{}, fmt.Errorf("spec.memory %q must be greater than zero, e.g. \"8Gi\"", s.Memory.String())
	}
	in := policy.VMInput{
		Name:         key(vm),
		CPUMilli:     s.CPU.MilliValue(),
		MemoryMiB:    (s.Memory.Value() + (1<<20 - 1)) >> 20,
		OriginRegion: s.OriginRegion,
		Residency:    string(s.Residency),
	}
	if s.MaxLatency != nil {
		if s.MaxLatency.Duration < time.Millisecond {
			return policy.VMInput{}, fmt.Errorf("spec.maxLatency %q must be at least 1ms", s.MaxLatency.Duration)
		}
		if s.OriginRegion == "" {
			return policy.VMInput{}, fmt.Errorf("spec.maxLatency %q needs spec.originRegion, the region latency is measured from", s.MaxLatency.Duration)
		}
		in.MaxLatencyMs = float64(s.MaxLatency.Duration) / float64(time.Millisecond)
	}
	for _, p := range s.Providers {
		in.Providers = append(in.Providers, string(p))
	}
	if pin := s.Pin; pin != nil {
		if pin.Region != "" && pin.Provider == "" {
			return policy.VMInput{}, fmt.Errorf("spec.pin.region %q needs spec.pin.provider", pin.Region)
		}
		in.Provider, in.Region = string(pin.Provider), pin.Region
	}
	return in, nil
}

// decision is the API form of a plan.
func decision(plan carbon.Plan, dec policy.VMDecision, fallback string, now time.Time) computev1alpha1.CloudVMDecision {
	c := plan.Candidate
	d := computev1alpha1.CloudVMDecision{
		Provider:        computev1alpha1.Provider(c.Provider),
		Region:          c.Region,
		Zone:            c.Zone,
		InstanceType:    c.InstanceType,
		Start:           metav1.NewTime(plan.Start),
		End:             metav1.NewTime(plan.End),
		IntensitySource: plan.Source,
		Reason:          plan.Reason,
		PolicyRevision:  dec.Revision,
		DecisionID:      dec.DecisionID,
		DecidedTime:     metav1.NewTime(now),
	}
	if p := c.PricePerHour; p.Sign() > 0 {
		d.PricePerHour = &computev1alpha1.Money{Amount: p.Quantity(), Currency: p.Currency()}
	}
	if plan.ExpectedGrams > 0 || plan.BaselineGrams > 0 {
		expected, baseline := carbon.Decimal(plan.ExpectedGrams, 1), carbon.Decimal(plan.BaselineGrams, 1)
		d.ExpectedEmissionsGrams, d.BaselineEmissionsGrams = &expected, &baseline
	}
	if plan.Fallback != "" || fallback != "" {
		d.Fallback = fallback + plan.Fallback
	}
	return d
}

func key(vm *computev1alpha1.CloudVM) string {
	if vm.Namespace == "" {
		return vm.Name
	}
	return vm.Namespace + "/" + vm.Name
}
