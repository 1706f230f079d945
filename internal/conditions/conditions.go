package conditions

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxMessage is the longest condition message the API server accepts
// (metav1.Condition's message has maxLength 32768).
const MaxMessage = 32768

// Set adds or updates the condition kind in conds: True when ok, else
// False, with reason and message (cut to MaxMessage), observed at
// generation. The transition time changes only when the status does. It
// reports whether anything changed.
func Set(conds *[]metav1.Condition, generation int64, kind string, ok bool, reason, message string) bool {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return SetStatus(conds, generation, kind, status, reason, message)
}

// SetStatus is Set with an explicit status, for conditions that may be
// Unknown.
func SetStatus(conds *[]metav1.Condition, generation int64, kind string, status metav1.ConditionStatus, reason, message string) bool {
	return meta.SetStatusCondition(conds, metav1.Condition{
		Type: kind, Status: status, Reason: reason, Message: Truncate(message, MaxMessage), ObservedGeneration: generation,
	})
}

// Truncate cuts s to at most n bytes, ending in "..." when it was cut, and
// never in the middle of a UTF-8 sequence.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-3, 0)
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
