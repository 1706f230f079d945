package propagation

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// seconds is d in whole seconds, as the member objects count it
// (minReadySeconds, activeDeadlineSeconds); nil for nil. The API server
// refuses a fraction of a second in the Meridian fields, so nothing is cut
// from an object it admitted.
func seconds(d *metav1.Duration) *int64 {
	if d == nil {
		return nil
	}
	s := int64(d.Duration / time.Second)
	return &s
}
