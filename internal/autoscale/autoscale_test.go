package autoscale

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDesired(t *testing.T) {
	spec := Spec{MinReplicas: 2, MaxReplicas: 100, TargetUtilization: 50}
	tests := []struct {
		name string
		spec Spec
		obs  Observation
		want Recommendation
	}{
		{"within tolerance", spec, Observation{Current: 4, Ready: 4, Utilization: 54}, Recommendation{4, ReasonWithinTolerance}},
		{"scale up as Algorithm 3", spec, Observation{Current: 4, Ready: 4, Utilization: 75}, Recommendation{6, ReasonScaleUp}},
		{"scale up limited to double or +4", spec, Observation{Current: 2, Ready: 2, Utilization: 400}, Recommendation{6, ReasonScaleUpLimited}},
		{"unready replicas count as idle when scaling up", spec, Observation{Current: 8, Ready: 4, Utilization: 100}, Recommendation{8, ReasonWithinTolerance}},
		{"scale down", spec, Observation{Current: 10, Ready: 10, Utilization: 20}, Recommendation{4, ReasonScaleDown}},
		// 4 measured at 20% and 10 new ones counted at the target: 14 x
		// (4x20 + 10x50) / (14x50) = 11.6, not 4 x 20/50 = 1.6.
		{"replicas without metrics count at the target when scaling down", spec, Observation{Current: 14, Ready: 4, Unmeasured: 10, Utilization: 20}, Recommendation{12, ReasonScaleDown}},
		{"replicas without metrics can hold a scale-down", spec, Observation{Current: 14, Ready: 2, Unmeasured: 12, Utilization: 40}, Recommendation{14, ReasonWithinTolerance}},
		{"clamped to minimum", spec, Observation{Current: 4, Ready: 4, Utilization: 1}, Recommendation{2, ReasonAtMinimum}},
		{"clamped to maximum", Spec{MinReplicas: 1, MaxReplicas: 5, TargetUtilization: 50}, Observation{Current: 4, Ready: 4, Utilization: 100}, Recommendation{5, ReasonAtMaximum}},
		{"no ready replica keeps the count", spec, Observation{Current: 3, Ready: 0}, Recommendation{3, ReasonNoMetrics}},
		{"custom tolerance", Spec{MinReplicas: 1, MaxReplicas: 10, TargetUtilization: 50, Tolerance: 0.5}, Observation{Current: 4, Ready: 4, Utilization: 70}, Recommendation{4, ReasonWithinTolerance}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Desired(tc.spec, tc.obs)); diff != "" {
				t.Errorf("Desired (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCoolDown(t *testing.T) {
	type step struct {
		at   time.Duration
		obs  Observation
		want Recommendation
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "scale down waits for the window, scale up does not",
			steps: []step{
				{0, Observation{Current: 10, Ready: 10, Utilization: 50}, Recommendation{10, ReasonWithinTolerance}},
				{time.Minute, Observation{Current: 10, Ready: 10, Utilization: 20}, Recommendation{10, ReasonCoolDown}},
				{5 * time.Minute, Observation{Current: 10, Ready: 10, Utilization: 20}, Recommendation{10, ReasonCoolDown}},
				{10*time.Minute + time.Second, Observation{Current: 10, Ready: 10, Utilization: 20}, Recommendation{4, ReasonScaleDown}},
				{11 * time.Minute, Observation{Current: 4, Ready: 4, Utilization: 100}, Recommendation{8, ReasonScaleUp}},
			},
		},
		{
			name: "a dip shorter than the window removes nothing",
			steps: []step{
				{0, Observation{Current: 6, Ready: 6, Utilization: 50}, Recommendation{6, ReasonWithinTolerance}},
				{3 * time.Minute, Observation{Current: 6, Ready: 6, Utilization: 10}, Recommendation{6, ReasonCoolDown}},
				{6 * time.Minute, Observation{Current: 6, Ready: 6, Utilization: 50}, Recommendation{6, ReasonWithinTolerance}},
				{12 * time.Minute, Observation{Current: 6, Ready: 6, Utilization: 30}, Recommendation{6, ReasonCoolDown}},
			},
		},
	}
	start := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Spec{MinReplicas: 2, MaxReplicas: 100, TargetUtilization: 50, CoolDown: DefaultCoolDown})
			for _, s := range tc.steps {
				got := a.Recommend(start.Add(s.at), s.obs)
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("at %v (-want +got):\n%s", s.at, diff)
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{"valid", Spec{MinReplicas: 1, MaxReplicas: 2, TargetUtilization: 50}, ""},
		{"min", Spec{MinReplicas: 0, MaxReplicas: 2, TargetUtilization: 50}, "minReplicas 0: must be at least 1"},
		{"max", Spec{MinReplicas: 3, MaxReplicas: 2, TargetUtilization: 50}, "maxReplicas 2: must be at least minReplicas (3)"},
		{"target", Spec{MinReplicas: 1, MaxReplicas: 2}, "targetUtilization 0: must be above 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := tc.spec.Validate(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}
