package conditions

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Requirement is a condition a summary condition needs, and the status it
// needs it in.
type Requirement struct {
	// Type is the condition's type.
	Type string
	// Status is the status the summary needs.
	Status metav1.ConditionStatus
	// MayBeAbsent makes a missing condition count as met (a condition set
	// only when something went wrong, such as a Job's Failed).
	MayBeAbsent bool
}

// Summary says how to set a summary condition such as Ready.
type Summary struct {
	// Type is the summary condition's type.
	Type string
	// Reason and Message are the summary's when every requirement is met.
	Reason, Message string
	// MissingReason is the summary's reason, with status Unknown, when a
	// required condition is not reported yet.
	MissingReason string
}

// SetSummary sets the summary condition s.Type in conds from the conditions
// already there: True with s.Reason when every requirement is met;
// otherwise False (Unknown when the condition is missing) with the reason
// and message of the first requirement that is not, so that one condition
// says whether the object is ready and, when it is not, why. It reports
// whether anything changed.
func SetSummary(conds *[]metav1.Condition, generation int64, s Summary, reqs ...Requirement) bool {
	for _, r := range reqs {
		c := meta.FindStatusCondition(*conds, r.Type)
		switch {
		case c == nil && r.MayBeAbsent:
			continue
		case c == nil:
			return SetStatus(conds, generation, s.Type, metav1.ConditionUnknown, s.MissingReason, fmt.Sprintf("%s is not reported yet", r.Type))
		case c.Status != r.Status:
			return SetStatus(conds, generation, s.Type, metav1.ConditionFalse, c.Reason, fmt.Sprintf("%s is %s: %s", r.Type, c.Status, c.Message))
		}
	}
	return SetStatus(conds, generation, s.Type, metav1.ConditionTrue, s.Reason, s.Message)
}
