package agent

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// heldCondition is a Reservation's Held condition: False when a slice's
// node is gone (or no longer schedulable or Ready) or overcommitted (its
// own pods grew into held capacity), True otherwise.
func heldCondition(slices []sharingv1alpha1.NodeSlice, nodes map[string]bool, over map[string]bool, generation int64) metav1.Condition {
	c := metav1.Condition{Type: sharingv1alpha1.ReservationHeld, Status: metav1.ConditionTrue, Reason: sharingv1alpha1.ReservationReasonFits,
		Message: "every slice fits its node", ObservedGeneration: generation}
	for _, s := range slices {
		switch {
		case !nodes[s.Node]:
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, sharingv1alpha1.ReservationReasonNodeGone, "node "+s.Node+" is gone, unschedulable or not Ready"
			return c
		case over[s.Node]:
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, sharingv1alpha1.ReservationReasonOvercommit, "node "+s.Node+" cannot spare what is held on it any more"
			return c
		}
	}
	return c
}

// setHeld puts c into res's conditions, with the summary Ready that
// follows it, and reports whether that changed them.
func setHeld(res *sharingv1alpha1.Reservation, c metav1.Condition) bool {
	changed := false
	if old := meta.FindStatusCondition(res.Status.Conditions, c.Type); old == nil || old.Status != c.Status || old.Reason != c.Reason ||
		old.Message != c.Message || old.ObservedGeneration != c.ObservedGeneration {
		meta.SetStatusCondition(&res.Status.Conditions, c)
		changed = true
	}
	return sharing.SetReady(res) || changed
}
