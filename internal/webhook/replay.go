package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/policy"
)

// A Replayer evaluates a logged policy decision again with the bundle
// revision it was made with; *policy.Engine is one.
type Replayer interface {
	Decision(id string) (policy.Decision, bool)
	Replay(ctx context.Context, d policy.Decision) (json.RawMessage, error)
}

var _ Replayer = &policy.Engine{}

// Replay decides vm's schedule again as it was decided: the policy decision
// spec.schedule names is evaluated again from the decision log with its
// bundle revision, and the planner's scheduler plans on that result at the
// decision's time. The result equals spec.schedule when the scheduler holds
// the data it held then (carbon.NoForecast always does).
func (p Planner) Replay(ctx context.Context, vm *computev1alpha1.CloudVM, r Replayer) (*computev1alpha1.CloudVMSchedule, error) {
	s := vm.Spec.Schedule
	if s == nil || s.Decision.DecisionID == "" {
		return nil, fmt.Errorf("CloudVM %s has no policy decision to replay (spec.schedule.decision.decisionID is empty)", key(vm))
	}
	logged, ok := r.Decision(s.Decision.DecisionID)
	if !ok {
		return nil, fmt.Errorf("policy decision %s of CloudVM %s is no longer in the decision log", s.Decision.DecisionID, key(vm))
	}
	raw, err := r.Replay(ctx, logged)
	if err != nil {
		return nil, err
	}
	dec, err := policy.DecodeVMDecision(raw)
	if err != nil {
		return nil, fmt.Errorf("failed to read the replayed policy decision %s: %w", logged.ID, err)
	}
	dec.Revision, dec.DecisionID = logged.Revision, logged.ID
	again := vm.DeepCopy()
	again.Spec.Schedule = nil
	p.Policies = replayed{dec}
	// A replay decides again; it must not take capacity a second time.
	p = p.previewing()
	res, err := p.Admit(ctx, admissionv1.Create, again, nil, s.Decision.DecidedTime.Time)
	var d *Denial
	if errors.As(err, &d) {
		return nil, fmt.Errorf("the replayed decision of CloudVM %s is a denial: %w", key(vm), err)
	}
	if err != nil {
		return nil, err
	}
	return res.Schedule, nil
}

// replayed answers the policies' question with a decision already made.
type replayed struct{ dec policy.VMDecision }

func (r replayed) VM(context.Context, policy.VMInput) (policy.VMDecision, error) { return r.dec, nil }
