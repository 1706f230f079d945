package autoscale

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestChoose(t *testing.T) {
	cpuUp := &Recommendation{Desired: 6, Reason: ReasonScaleUp}
	training := &Advice{Valid: true, Replicas: 3, Reason: "training: exploring -1 around 4"}
	production := &Advice{Valid: true, Production: true, Replicas: 7, Reason: "fewest replicas in band"}
	invalid := &Advice{Production: true, Replicas: 2, Reason: "no sample"}
	tests := []struct {
		name string
		in   ChoiceInput
		want Choice
	}{
		{"training follows the CPU target", ChoiceInput{Current: 4, MinReplicas: 1, MaxReplicas: 10, Advice: training, CPU: cpuUp, CPUConfigured: true}, Choice{Desired: 6, Source: SourceCPU}},
		{"production follows the advice", ChoiceInput{Current: 4, MinReplicas: 1, MaxReplicas: 10, Advice: production, CPU: cpuUp, CPUConfigured: true}, Choice{Desired: 7, Source: SourceOptimizer}},
		{"invalid advice falls back to the CPU target", ChoiceInput{Current: 4, MinReplicas: 1, MaxReplicas: 10, Advice: invalid, CPU: cpuUp, CPUConfigured: true}, Choice{Desired: 6, Source: SourceCPU}},
		{"no advice this interval falls back to the CPU target", ChoiceInput{Current: 4, MinReplicas: 1, MaxReplicas: 10, CPU: cpuUp, CPUConfigured: true}, Choice{Desired: 6, Source: SourceCPU}},
		{"training without a CPU target explores", ChoiceInput{Current: 4, MinReplicas: 1, MaxReplicas: 10, Advice: training}, Choice{Desired: 3, Source: SourceExploration}},
		{"training with a CPU target but no CPU metrics keeps the count", ChoiceInput{Current: 4, MinReplicas: 1, MaxReplicas: 10, Advice: training, CPUConfigured: true}, Choice{Desired: 4, Source: SourceNone}},
		{"invalid advice without CPU keeps the count", ChoiceInput{Current: 4, MinReplicas: 1, MaxReplicas: 10, Advice: invalid}, Choice{Desired: 4, Source: SourceNone}},
		{"advice above the maximum is lowered", ChoiceInput{Current: 4, MinReplicas: 1, MaxReplicas: 5, Advice: production}, Choice{Desired: 5, Source: SourceOptimizer}},
		{"CPU target below the minimum is raised", ChoiceInput{Current: 4, MinReplicas: 3, MaxReplicas: 10, Advice: training, CPU: &Recommendation{Desired: 1, Reason: ReasonScaleDown}, CPUConfigured: true}, Choice{Desired: 3, Source: SourceCPU}},
		{"kept count outside the bounds is clamped", ChoiceInput{Current: 12, MinReplicas: 1, MaxReplicas: 10}, Choice{Desired: 10, Source: SourceNone}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Choose(tc.in)
			if got.Reason == "" {
				t.Errorf("Choose gave no reason")
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Choice{}, "Reason")); diff != "" {
				t.Errorf("Choose (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChooseInVirtualTime runs the optimizer mode's rule over a minute of
// virtual time: the CPU target (with its cool-down) scales while the
// optimizer trains, the advice once it is in production, and the CPU target
// again when the advice turns invalid.
func TestChooseInVirtualTime(t *testing.T) {
	a := New(Spec{MinReplicas: 2, MaxReplicas: 12, TargetUtilization: 50, CoolDown: 30 * time.Second})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		at     time.Duration
		util   float64
		advice Advice
		want   int32
		source Source
	}{
		{0, 100, Advice{Valid: true, Replicas: 5}, 8, SourceCPU},               // 4 at 100% of 50%: CPU doubles, training advice ignored
		{10 * time.Second, 20, Advice{Valid: true, Replicas: 9}, 8, SourceCPU}, // scale-down held by the cool-down
		{20 * time.Second, 20, Advice{Valid: true, Production: true, Replicas: 5}, 5, SourceOptimizer},
		{30 * time.Second, 90, Advice{Valid: true, Production: true, Replicas: 6}, 6, SourceOptimizer},
		{40 * time.Second, 90, Advice{Production: true, Replicas: 1}, 11, SourceCPU}, // invalid advice: CPU target, ceil(6 x 90/50)
		{50 * time.Second, 90, Advice{Valid: true, Production: true, Replicas: 40}, 12, SourceOptimizer},
	}
	current := int32(4)
	for _, s := range steps {
		rec := a.Recommend(start.Add(s.at), Observation{Current: current, Ready: current, Utilization: s.util})
		adv := s.advice
		got := Choose(ChoiceInput{Current: current, MinReplicas: 2, MaxReplicas: 12, Advice: &adv, CPU: &rec, CPUConfigured: true})
		if diff := cmp.Diff(Choice{Desired: s.want, Source: s.source}, got, cmpopts.IgnoreFields(Choice{}, "Reason")); diff != "" {
			t.Fatalf("at %s (-want +got):\n%s", s.at, diff)
		}
		current = got.Desired
	}
}
