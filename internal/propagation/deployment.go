package propagation

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// OwnerOfDeployment returns the owner record of a MultiClusterDeployment.
func OwnerOfDeployment(mcd *multiclusterv1alpha1.MultiClusterDeployment) Owner {
	return Owner{Kind: "MultiClusterDeployment", Namespace: mcd.Namespace, Name: mcd.Name, UID: string(mcd.UID)}
}

// Deployment returns the member Deployment of mcd with replicas: same name,
// namespace, selector, template, strategy and labels, plus the owner's
// labels on the Deployment and on its pod template so that its pods can be
// traced back too.
func Deployment(mcd *multiclusterv1alpha1.MultiClusterDeployment, replicas int32) *appsv1.Deployment {
	return DeploymentOwnedBy(mcd, OwnerOfDeployment(mcd), replicas)
}

// DeploymentOwnedBy is Deployment with the member objects tied to owner
// instead of mcd: a plain Deployment's ResourcePlacement, whose view as a
// MultiClusterDeployment mcd is.
func DeploymentOwnedBy(mcd *multiclusterv1alpha1.MultiClusterDeployment, owner Owner, replicas int32) *appsv1.Deployment {
	d := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        mcd.Name,
			Namespace:   mcd.Namespace,
			Labels:      maps.Clone(mcd.Labels),
			Annotations: map[string]string{},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: mcd.Spec.Selector.DeepCopy(),
			Template: *mcd.Spec.Template.DeepCopy(),
			Strategy: *mcd.Spec.Strategy.DeepCopy(),
			// The API server bounds minReady to an int32 of seconds.
			MinReadySeconds: int32(ptr.Deref(seconds(mcd.Spec.MinReady), 0)),
		},
	}
	owner.stamp(d, mcd.Generation)
	owner.stampTemplate(&d.Spec.Template)
	return d
}
