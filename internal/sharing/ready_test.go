package sharing_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// TestSetReady: every kind of message summarises its outcome in Ready:
// True with the outcome's reason when it is the one asked for, False with
// the reason of the condition that says why not, Unknown before any.
func TestSetReady(t *testing.T) {
	cond := func(kind string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: kind, Status: status, Reason: reason, Message: reason + " message"}
	}
	adv := func(cs ...metav1.Condition) client.Object {
		return &sharingv1alpha1.Advertisement{Status: sharingv1alpha1.AdvertisementStatus{Conditions: cs}}
	}
	ack := func(confirm bool, d sharingv1alpha1.AcknowledgementDecision, r sharingv1alpha1.AcknowledgementReason) client.Object {
		return &sharingv1alpha1.Acknowledgement{Spec: sharingv1alpha1.AcknowledgementSpec{Confirm: confirm},
			Status: sharingv1alpha1.AcknowledgementStatus{Decision: d, Reason: r, Reservation: "r-1"}}
	}
	type ready struct {
		Status metav1.ConditionStatus
		Reason string
	}
	tests := []struct {
		name string
		msg  client.Object
		want ready
	}{
		{name: "an advertisement accepted and renewed", want: ready{metav1.ConditionTrue, "PolicyAccepted"},
			msg: adv(cond("Accepted", metav1.ConditionTrue, "PolicyAccepted"), cond("Expired", metav1.ConditionFalse, "Renewed"))},
		{name: "an advertisement refused", want: ready{metav1.ConditionFalse, "PolicyRefused"},
			msg: adv(cond("Accepted", metav1.ConditionFalse, "PolicyRefused"), cond("Expired", metav1.ConditionFalse, "Renewed"))},
		{name: "an advertisement accepted and expired", want: ready{metav1.ConditionFalse, "TimeToLivePassed"},
			msg: adv(cond("Accepted", metav1.ConditionTrue, "PolicyAccepted"), cond("Expired", metav1.ConditionTrue, "TimeToLivePassed"))},
		{name: "an advertisement not decided", want: ready{metav1.ConditionUnknown, "NotAnswered"}, msg: adv()},
		{name: "an offer selected", want: ready{metav1.ConditionTrue, "CheapestFit"},
			msg: &sharingv1alpha1.Offer{Status: sharingv1alpha1.OfferStatus{Conditions: []metav1.Condition{cond("Selected", metav1.ConditionTrue, "CheapestFit")}}}},
		{name: "an offer outbid", want: ready{metav1.ConditionFalse, "Outbid"},
			msg: &sharingv1alpha1.Offer{Status: sharingv1alpha1.OfferStatus{Conditions: []metav1.Condition{cond("Selected", metav1.ConditionFalse, "Outbid")}}}},
		{name: "a quote answered with an offer", want: ready{metav1.ConditionTrue, "Offered"},
			msg: &sharingv1alpha1.Quote{Status: sharingv1alpha1.QuoteStatus{Conditions: []metav1.Condition{cond("Answered", metav1.ConditionTrue, "Offered")}}}},
		{name: "a quote without capacity", want: ready{metav1.ConditionFalse, "NoCapacity"},
			msg: &sharingv1alpha1.Quote{Status: sharingv1alpha1.QuoteStatus{Conditions: []metav1.Condition{cond("Answered", metav1.ConditionFalse, "NoCapacity")}}}},
		{name: "a release done", want: ready{metav1.ConditionTrue, "Freed"},
			msg: &sharingv1alpha1.Release{Status: sharingv1alpha1.ReleaseStatus{Conditions: []metav1.Condition{cond("Released", metav1.ConditionTrue, "Freed")}}}},
		{name: "a reservation whose node went", want: ready{metav1.ConditionFalse, "NodeGone"},
			msg: &sharingv1alpha1.Reservation{Status: sharingv1alpha1.ReservationStatus{Conditions: []metav1.Condition{cond("Held", metav1.ConditionFalse, "NodeGone")}}}},
		{name: "a reservation not checked yet", want: ready{metav1.ConditionUnknown, "NotAnswered"}, msg: &sharingv1alpha1.Reservation{}},
		{name: "a capacity query answered", want: ready{metav1.ConditionTrue, "Matched"},
			msg: &sharingv1alpha1.CapacityQuery{Status: sharingv1alpha1.CapacityQueryStatus{Conditions: []metav1.Condition{cond("Answered", metav1.ConditionTrue, "Matched")}}}},
		{name: "an acknowledgement confirmed", want: ready{metav1.ConditionTrue, "Reserved"}, msg: ack(true, sharingv1alpha1.AckConfirmed, sharingv1alpha1.AcknowledgementReasonReserved)},
		{name: "a decline freed, as asked", want: ready{metav1.ConditionTrue, "Declined"}, msg: ack(false, sharingv1alpha1.AckRefused, sharingv1alpha1.AcknowledgementReasonDeclined)},
		{name: "a confirmation too late", want: ready{metav1.ConditionFalse, "OfferExpired"}, msg: ack(true, sharingv1alpha1.AckRefused, sharingv1alpha1.AcknowledgementReasonOfferExpired)},
		{name: "an acknowledgement not answered", want: ready{metav1.ConditionUnknown, "NotAnswered"}, msg: ack(true, "", "")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !sharing.SetReady(tc.msg) {
				t.Error("SetReady() = false on a message without Ready, want true")
			}
			conds := conditionsOf(tc.msg)
			c := meta.FindStatusCondition(conds, sharingv1alpha1.ConditionReady)
			if c == nil {
				t.Fatalf("no Ready condition in %+v", conds)
			}
			if diff := cmp.Diff(tc.want, ready{c.Status, c.Reason}); diff != "" {
				t.Errorf("Ready (-want +got):\n%s", diff)
			}
			if c.Message == "" {
				t.Error("Ready has no message")
			}
			if sharing.SetReady(tc.msg) {
				t.Error("SetReady() = true the second time, want false: nothing changed")
			}
		})
	}
}

// conditionsOf is the conditions of a message.
func conditionsOf(o client.Object) []metav1.Condition {
	switch m := o.(type) {
	case *sharingv1alpha1.Advertisement:
		return m.Status.Conditions
	case *sharingv1alpha1.Offer:
		return m.Status.Conditions
	case *sharingv1alpha1.Quote:
		return m.Status.Conditions
	case *sharingv1alpha1.Release:
		return m.Status.Conditions
	case *sharingv1alpha1.Reservation:
		return m.Status.Conditions
	case *sharingv1alpha1.CapacityQuery:
		return m.Status.Conditions
	case *sharingv1alpha1.Acknowledgement:
		return m.Status.Conditions
	}
	return nil
}
