package agent

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// sent is what a consumer holds of this cluster's advertisement.
type sent struct {
	// Exists is false when nothing was sent yet.
	Exists bool
	// LastFull and LastSent are when the last Full and the last of any
	// type were sent.
	LastFull, LastSent time.Time
	// Availability last sent.
	Availability []sharingv1alpha1.NodeShape
	// Withdrawn: the last one took back what the consumer refused; a
	// change of availability is not sent before the timers say so.
	Withdrawn bool
	// Priced: the receiver kept the prices this cluster charges now from
	// a Full advertisement it read (AnnotationFullPrices). Until it has,
	// a Partial would reach it unpriced (a Full it did not read in time
	// is overwritten), so a Full is sent in its place.
	Priced bool
}

// cadence decides what to send a consumer at now, given what it holds and
// the availability this cluster would advertise to it now: a Full
// advertisement when none was sent or the last Full is full old, a Partial
// one when the last is partial old or the total cpu or memory moved by at
// least change (unless the last withdrew a refused offer), and a Full in
// its place when the receiver does not hold the prices; "" when nothing is
// due. wait is how long until something is due by the clock alone.
func cadence(now time.Time, s sent, want []sharingv1alpha1.NodeShape, full, partial time.Duration, change float64) (sharingv1alpha1.AdvertisementType, time.Duration) {
	if !s.Exists || s.LastFull.IsZero() || now.Sub(s.LastFull) >= full {
		return sharingv1alpha1.AdvertisementFull, partial
	}
	if now.Sub(s.LastSent) >= partial || (!s.Withdrawn && movedEnough(s.Availability, want, change)) {
		return s.update(), min(partial, s.LastFull.Add(full).Sub(now))
	}
	return "", min(s.LastSent.Add(partial).Sub(now), s.LastFull.Add(full).Sub(now))
}

// update is the type of an advertisement that updates what the receiver
// holds: Partial, or Full when the receiver does not hold the prices.
func (s sent) update() sharingv1alpha1.AdvertisementType {
	if !s.Priced {
		return sharingv1alpha1.AdvertisementFull
	}
	return sharingv1alpha1.AdvertisementPartial
}

// movedEnough reports whether the total cpu or memory of want differs from
// that of was by at least fraction of was's (any change from nothing).
func movedEnough(was, want []sharingv1alpha1.NodeShape, fraction float64) bool {
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		a, b := total(was, r), total(want, r)
		if a == 0 {
			if b != 0 {
				return true
			}
			continue
		}
		d := (b - a) / a
		if d >= fraction || -d >= fraction {
			return true
		}
	}
	return false
}

func total(shapes []sharingv1alpha1.NodeShape, r corev1.ResourceName) float64 {
	var t float64
	for _, s := range shapes {
		q := s.Resources[r]
		t += q.AsApproximateFloat64() * float64(s.Count)
	}
	return t
}
