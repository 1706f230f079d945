package sharing

import (
	"time"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// ExpiresAt is when an advertisement stops holding: its timestamp plus its
// time-to-live.
func ExpiresAt(spec *sharingv1alpha1.AdvertisementSpec) time.Time {
	return spec.Timestamp.Add(spec.TimeToLive.Duration)
}

// Expired reports whether an advertisement has expired at now. An
// advertisement whose timestamp is after now plus skew (a provider's clock
// ahead of the consumer's) counts as expired too, so a wrong clock cannot
// stretch a time-to-live.
func Expired(spec *sharingv1alpha1.AdvertisementSpec, now time.Time, skew time.Duration) bool {
	return !now.Before(ExpiresAt(spec)) || spec.Timestamp.After(now.Add(skew))
}
