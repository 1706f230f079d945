package cloudprovisioner

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

func setReady(cp *multiclusterv1alpha1.CloudProvisioner, status metav1.ConditionStatus, reason, msg string) {
	setCondition(cp, multiclusterv1alpha1.CloudProvisionerReady, status, reason, msg)
	ready := 0.0
	if status == metav1.ConditionTrue {
		ready = 1
	}
	cloudReady.WithLabelValues(cp.Namespace, cp.Name).Set(ready)
	cloudNodes.WithLabelValues(cp.Namespace, cp.Name).Set(float64(cp.Status.Nodes))
}

func setCondition(cp *multiclusterv1alpha1.CloudProvisioner, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&cp.Status.Conditions, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: cp.Generation,
	})
}
