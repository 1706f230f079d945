package virtualnode

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConsumerStatus(t *testing.T) {
	now := metav1.NewTime(t0)
	earlier := metav1.NewTime(t0.Add(-60e9))
	reflected := corev1.PodCondition{Type: PodReflected, Status: corev1.ConditionTrue, Reason: "TwinCreated", LastTransitionTime: earlier}
	running := corev1.PodStatus{
		Phase: corev1.PodRunning, PodIP: "10.1.0.7", PodIPs: []corev1.PodIP{{IP: "10.1.0.7"}}, HostIP: "192.168.0.3", StartTime: &earlier,
		QOSClass:          corev1.PodQOSBurstable,
		Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, RestartCount: 1}},
	}
	scheduled := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}
	gate := corev1.PodCondition{Type: "example.com/lb-ready", Status: corev1.ConditionTrue}
	pod := func(s corev1.PodStatus) *corev1.Pod { return &corev1.Pod{Status: s} }
	twin := func(s corev1.PodStatus) *corev1.Pod { return &corev1.Pod{Status: s} }
	tests := []struct {
		name string
		pod  *corev1.Pod
		twin *corev1.Pod
		want corev1.PodStatus
	}{{
		name: "no twin yet: unchanged",
		pod:  pod(corev1.PodStatus{Phase: corev1.PodPending}),
		want: corev1.PodStatus{Phase: corev1.PodPending},
	}, {
		name: "twin running: phase, conditions, IPs, containers flow back; the consumer's own conditions stay; no host IP",
		pod: pod(corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			scheduled, reflected, {Type: corev1.PodReady, Status: corev1.ConditionFalse}, gate,
		}}),
		twin: twin(running),
		want: corev1.PodStatus{
			Phase: corev1.PodRunning, PodIP: "10.1.0.7", PodIPs: []corev1.PodIP{{IP: "10.1.0.7"}}, StartTime: &earlier, QOSClass: corev1.PodQOSBurstable,
			Conditions:        []corev1.PodCondition{scheduled, reflected, {Type: corev1.PodReady, Status: corev1.ConditionTrue}, gate},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, RestartCount: 1}},
		},
	}, {
		name: "twin new (no status): Pending and Reflected",
		pod:  pod(corev1.PodStatus{}),
		twin: twin(corev1.PodStatus{}),
		want: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: PodReflected, Status: corev1.ConditionTrue, Reason: "TwinCreated", LastTransitionTime: now}}},
	}, {
		name: "twin failed: Failed with its reason",
		pod:  pod(corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{reflected}}),
		twin: twin(corev1.PodStatus{Phase: corev1.PodFailed, Reason: "OOMKilled"}),
		want: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "OOMKilled", Conditions: []corev1.PodCondition{reflected}},
	}, {
		name: "twin deleted after reflection: Failed, not ready",
		pod: pod(corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.0.7", Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: earlier}, reflected,
		}}),
		want: corev1.PodStatus{Phase: corev1.PodFailed, Reason: ReasonTwinDeleted, Message: "the pod's twin in the provider was deleted", PodIP: "10.1.0.7", Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: ReasonTwinDeleted, LastTransitionTime: now}, reflected,
		}},
	}, {
		name: "terminal pod: unchanged whatever the twin says",
		pod:  pod(corev1.PodStatus{Phase: corev1.PodSucceeded, Conditions: []corev1.PodCondition{reflected}}),
		twin: twin(running),
		want: corev1.PodStatus{Phase: corev1.PodSucceeded, Conditions: []corev1.PodCondition{reflected}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ConsumerStatus(tc.pod, tc.twin, now)); diff != "" {
				t.Errorf("ConsumerStatus() (-want +got):\n%s", diff)
			}
		})
	}
}
