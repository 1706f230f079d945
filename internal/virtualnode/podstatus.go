package virtualnode

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConsumerStatus is the status the consumer pod should show given its
// twin, as a kubelet on the virtual node would report it: the twin's
// phase, conditions, pod IPs, start time and container statuses, plus the
// PodReflected condition. twin is nil when the provider has none: before
// the twin is created that changes nothing; after (pod has PodReflected)
// the workload is lost and the pod is Failed, so its controller replaces
// it, as kubelet reports a pod it can no longer run. now stamps the
// conditions this function adds.
func ConsumerStatus(pod *corev1.Pod, twin *corev1.Pod, now metav1.Time) corev1.PodStatus {
	status := *pod.Status.DeepCopy()
	if isTerminal(pod.Status.Phase) {
		return status
	}
	if twin == nil {
		if !hasReflected(pod) {
			return status
		}
		status.Phase = corev1.PodFailed
		status.Reason = ReasonTwinDeleted
		status.Message = "the pod's twin in the provider was deleted"
		for i := range status.Conditions {
			if status.Conditions[i].Type == corev1.PodReady || status.Conditions[i].Type == corev1.ContainersReady {
				if status.Conditions[i].Status != corev1.ConditionFalse {
					status.Conditions[i].Status = corev1.ConditionFalse
					status.Conditions[i].Reason = ReasonTwinDeleted
					status.Conditions[i].LastTransitionTime = now
				}
			}
		}
		return status
	}
	reflected := corev1.PodCondition{Type: PodReflected, Status: corev1.ConditionTrue, Reason: "TwinCreated", LastTransitionTime: now}
	for _, c := range pod.Status.Conditions {
		if c.Type == PodReflected && c.Status == corev1.ConditionTrue {
			reflected = c
		}
	}
	t := twin.Status
	status.Phase = t.Phase
	status.Reason, status.Message = t.Reason, t.Message
	status.PodIP = t.PodIP
	status.PodIPs = append([]corev1.PodIP(nil), t.PodIPs...)
	status.StartTime = t.StartTime.DeepCopy()
	status.QOSClass = t.QOSClass
	status.ContainerStatuses = append([]corev1.ContainerStatus(nil), t.ContainerStatuses...)
	status.InitContainerStatuses = append([]corev1.ContainerStatus(nil), t.InitContainerStatuses...)
	// The twin's conditions replace those of the same type; conditions
	// only the consumer has (PodScheduled on the virtual node, readiness
	// gates other controllers set) are kept.
	for _, c := range t.Conditions {
		if c.Type != PodReflected {
			setCondition(&status.Conditions, c)
		}
	}
	setCondition(&status.Conditions, reflected)
	if status.Phase == "" {
		status.Phase = corev1.PodPending
	}
	return status
}

// MarkReflected is pod's status once its twin has been created.
func MarkReflected(pod *corev1.Pod, now metav1.Time) corev1.PodStatus {
	status := *pod.Status.DeepCopy()
	if hasReflected(pod) {
		return status
	}
	status.Conditions = append(status.Conditions, corev1.PodCondition{Type: PodReflected, Status: corev1.ConditionTrue, Reason: "TwinCreated", LastTransitionTime: now})
	return status
}

func hasReflected(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == PodReflected && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func isTerminal(p corev1.PodPhase) bool { return p == corev1.PodFailed || p == corev1.PodSucceeded }

// setCondition replaces the condition of c's type in conds, or appends c.
func setCondition(conds *[]corev1.PodCondition, c corev1.PodCondition) {
	for i := range *conds {
		if (*conds)[i].Type == c.Type {
			(*conds)[i] = c
			return
		}
	}
	*conds = append(*conds, c)
}
