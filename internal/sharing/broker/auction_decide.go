package broker

import (
	"strings"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// forwardedName names the copy of consumer's Quote q that the broker
// sends to providers: unique per consumer (cluster IDs are DNS labels, so
// "<consumer>." prefixes no other consumer's names) and per auction (q's
// UID), so that an application's next auction, whose Quote has the same
// name, is answered afresh. Offers and Reservations are named after it.
func forwardedName(consumer sharingv1alpha1.ClusterID, q *sharingv1alpha1.Quote) string {
	base := q.Name
	if !strings.HasPrefix(base, string(consumer)+".") {
		base = string(consumer) + "." + base
	}
	if len(base) > 200 {
		base = strings.Trim(base[:200], ".-")
	}
	uid := strings.ReplaceAll(string(q.UID), "-", "")
	if len(uid) > 8 {
		uid = uid[:8]
	}
	return strings.ToLower(base + "." + uid)
}

// forwarded is consumer's Quote q as sent to providers: from the broker
// (each provider's Peer for the broker is the consumer it answers), on
// behalf of the consumer, with the same components and deadline.
func forwarded(self sharingv1alpha1.ClusterID, q *sharingv1alpha1.Quote) sharingv1alpha1.QuoteSpec {
	spec := *q.Spec.DeepCopy()
	spec.Consumer = self
	return spec
}
