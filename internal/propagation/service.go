package propagation

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// OwnerOfService returns the owner record of a MultiClusterService.
func OwnerOfService(mcs *multiclusterv1alpha1.MultiClusterService) Owner {
	return Owner{Kind: "MultiClusterService", Namespace: mcs.Namespace, Name: mcs.Name, UID: string(mcs.UID)}
}

// Service returns the member Service of mcs: same name, namespace,
// selector, ports, type, labels and annotations (a mesh's global-service
// annotation travels with it).
func Service(mcs *multiclusterv1alpha1.MultiClusterService) *corev1.Service {
	s := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        mcs.Name,
			Namespace:   mcs.Namespace,
			Labels:      maps.Clone(mcs.Labels),
			Annotations: withoutKubectl(mcs.Annotations),
		},
		Spec: corev1.ServiceSpec{
			Selector: maps.Clone(mcs.Spec.Selector),
			Ports:    append([]corev1.ServicePort(nil), mcs.Spec.Ports...),
			Type:     mcs.Spec.Type,
		},
	}
	OwnerOfService(mcs).stamp(s, mcs.Generation)
	return s
}

// ServiceExport returns the Multi-Cluster Services API export of mcs's
// member Service, which a cluster mesh (Cilium, Submariner) routes across
// clusters.
func ServiceExport(mcs *multiclusterv1alpha1.MultiClusterService) *mcsv1beta1.ServiceExport {
	e := &mcsv1beta1.ServiceExport{
		TypeMeta:   metav1.TypeMeta{APIVersion: mcsv1beta1.GroupVersion.String(), Kind: "ServiceExport"},
		ObjectMeta: metav1.ObjectMeta{Name: mcs.Name, Namespace: mcs.Namespace},
	}
	OwnerOfService(mcs).stamp(e, mcs.Generation)
	return e
}

// withoutKubectl drops kubectl's bookkeeping annotation, which describes
// the management object, not the member one.
func withoutKubectl(a map[string]string) map[string]string {
	out := maps.Clone(a)
	delete(out, corev1.LastAppliedConfigAnnotation)
	if out == nil {
		out = map[string]string{}
	}
	return out
}
