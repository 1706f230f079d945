package cloudprovisioner

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/conditions"
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
	conditions.SetStatus(&cp.Status.Conditions, cp.Generation, typ, status, reason, msg)
}
