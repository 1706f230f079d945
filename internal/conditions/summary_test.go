package conditions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSetSummary(t *testing.T) {
	reqs := []Requirement{
		{Type: "Placed", Status: metav1.ConditionTrue},
		{Type: "Failed", Status: metav1.ConditionFalse, MayBeAbsent: true},
	}
	s := Summary{Type: "Ready", Reason: "Ready", Message: "placed", MissingReason: "NotObserved"}
	type got struct {
		Status          metav1.ConditionStatus
		Reason, Message string
	}
	for _, tc := range []struct {
		name  string
		conds []metav1.Condition
		want  got
	}{
		{name: "every requirement met, an optional one absent",
			conds: []metav1.Condition{{Type: "Placed", Status: metav1.ConditionTrue, Reason: "Placed"}},
			want:  got{metav1.ConditionTrue, "Ready", "placed"}},
		{name: "a required condition not reported yet",
			want: got{metav1.ConditionUnknown, "NotObserved", "Placed is not reported yet"}},
		{name: "the first unmet requirement gives the reason",
			conds: []metav1.Condition{
				{Type: "Placed", Status: metav1.ConditionFalse, Reason: "NoCluster", Message: "every cluster was filtered out"},
				{Type: "Failed", Status: metav1.ConditionTrue, Reason: "MemberJobFailed"},
			},
			want: got{metav1.ConditionFalse, "NoCluster", "Placed is False: every cluster was filtered out"}},
		{name: "an optional condition present and unmet",
			conds: []metav1.Condition{
				{Type: "Placed", Status: metav1.ConditionTrue, Reason: "Placed"},
				{Type: "Failed", Status: metav1.ConditionTrue, Reason: "MemberJobFailed", Message: "1 of 2 member Jobs failed"},
			},
			want: got{metav1.ConditionFalse, "MemberJobFailed", "Failed is True: 1 of 2 member Jobs failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conds := tc.conds
			SetSummary(&conds, 3, s, reqs...)
			c := meta.FindStatusCondition(conds, "Ready")
			if c == nil {
				t.Fatal("no Ready condition")
			}
			if diff := cmp.Diff(tc.want, got{c.Status, c.Reason, c.Message}); diff != "" {
				t.Errorf("Ready (-want +got):\n%s", diff)
			}
			if c.ObservedGeneration != 3 {
				t.Errorf("observedGeneration %d, want 3", c.ObservedGeneration)
			}
		})
	}
}
