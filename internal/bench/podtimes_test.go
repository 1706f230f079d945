package bench

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestPodTimes follows two pods of one Deployment through their stages, as
// the watch reports them, and one of another: the stages are the last
// pod's, each taken the first time it is seen.
func TestPodTimes(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	pod := func(uid, app, node string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Labels: map[string]string{"app": app}},
			Spec:       corev1.PodSpec{NodeName: node},
			Status:     corev1.PodStatus{Phase: phase},
		}
	}
	tm := newPodTimes()
	tm.record(pod("a", "web", "", corev1.PodPending), at(100))
	tm.record(pod("b", "web", "", corev1.PodPending), at(300))
	tm.record(pod("a", "web", "n1", corev1.PodPending), at(400))
	tm.record(pod("a", "web", "n1", corev1.PodRunning), at(500))
	tm.record(pod("a", "web", "n1", corev1.PodRunning), at(900)) // a later update changes nothing
	tm.record(pod("b", "web", "n2", corev1.PodRunning), at(700)) // bound and Running in one update
	tm.record(pod("c", "other", "n3", corev1.PodRunning), at(5000))

	created, bound := tm.last("web", start)
	if created != 300*time.Millisecond || bound != 700*time.Millisecond {
		t.Errorf("last(web) = created %v, bound %v; want 300ms, 700ms", created, bound)
	}
}
