package sharing

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
)

// SetReady sets the summary condition Ready of a sharing message from its
// outcome (sharingv1alpha1.ConditionReady): every writer of an outcome
// calls it beside the outcome, so that `kubectl wait --for=condition=Ready`
// works on every kind of message. It reports whether Ready changed; a kind
// that is not a message is left alone.
func SetReady(msg client.Object) bool {
	switch m := msg.(type) {
	case *sharingv1alpha1.Advertisement:
		return summarise(&m.Status.Conditions, m.Generation,
			conditions.Requirement{Type: sharingv1alpha1.AdvertisementAccepted, Status: metav1.ConditionTrue},
			conditions.Requirement{Type: sharingv1alpha1.AdvertisementExpired, Status: metav1.ConditionFalse})
	case *sharingv1alpha1.Offer:
		return summarise(&m.Status.Conditions, m.Generation, conditions.Requirement{Type: sharingv1alpha1.OfferSelected, Status: metav1.ConditionTrue})
	case *sharingv1alpha1.Quote:
		return summarise(&m.Status.Conditions, m.Generation, conditions.Requirement{Type: sharingv1alpha1.QuoteAnswered, Status: metav1.ConditionTrue})
	case *sharingv1alpha1.Release:
		return summarise(&m.Status.Conditions, m.Generation, conditions.Requirement{Type: sharingv1alpha1.ReleaseDone, Status: metav1.ConditionTrue})
	case *sharingv1alpha1.Reservation:
		return summarise(&m.Status.Conditions, m.Generation, conditions.Requirement{Type: sharingv1alpha1.ReservationHeld, Status: metav1.ConditionTrue})
	case *sharingv1alpha1.CapacityQuery:
		return summarise(&m.Status.Conditions, m.Generation, conditions.Requirement{Type: sharingv1alpha1.CapacityQueryAnswered, Status: metav1.ConditionTrue})
	case *sharingv1alpha1.Acknowledgement:
		return acknowledged(m)
	}
	return false
}

// summarise sets Ready from the requirements with conditions.SetSummary;
// when they are met, Ready has the reason and message of the first one, the
// condition that holds the outcome.
func summarise(conds *[]metav1.Condition, generation int64, reqs ...conditions.Requirement) bool {
	s := conditions.Summary{Type: sharingv1alpha1.ConditionReady, MissingReason: sharingv1alpha1.ReasonNotAnswered}
	if c := meta.FindStatusCondition(*conds, reqs[0].Type); c != nil {
		s.Reason, s.Message = c.Reason, c.Message
	}
	return conditions.SetSummary(conds, generation, s, reqs...)
}

// acknowledged sets an Acknowledgement's Ready from the provider's
// decision, its one outcome: True when the provider did as asked (a
// confirmation Confirmed, a decline freed), False with status.reason
// otherwise, Unknown before any decision.
func acknowledged(a *sharingv1alpha1.Acknowledgement) bool {
	st := &a.Status
	reason := string(st.Reason)
	if reason == "" {
		reason = string(st.Decision)
	}
	switch {
	case st.Decision == "":
		return conditions.SetStatus(&st.Conditions, a.Generation, sharingv1alpha1.ConditionReady, metav1.ConditionUnknown,
			sharingv1alpha1.ReasonNotAnswered, "the provider has not answered yet")
	case st.Decision == sharingv1alpha1.AckConfirmed:
		return conditions.Set(&st.Conditions, a.Generation, sharingv1alpha1.ConditionReady, true, reason, "reserved as "+st.Reservation)
	case !a.Spec.Confirm && st.Reason == sharingv1alpha1.AcknowledgementReasonDeclined:
		return conditions.Set(&st.Conditions, a.Generation, sharingv1alpha1.ConditionReady, true, reason, "declined; the provider freed what it held for the offer")
	}
	return conditions.Set(&st.Conditions, a.Generation, sharingv1alpha1.ConditionReady, false, reason, "the provider refused the acknowledgement: "+reason)
}
