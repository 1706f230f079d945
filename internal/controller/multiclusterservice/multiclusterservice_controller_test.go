package multiclusterservice_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

func backend(location string) *multiclusterv1alpha1.MultiClusterDeployment {
	d := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: "backend", Namespace: "shop"}}
	d.Spec.Replicas = ptr.To[int32](2)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "shop", "tier": "backend"}}
	d.Spec.Template.Labels = map[string]string{"app": "shop", "tier": "backend"}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "php", Image: "registry.k8s.io/hpa-example",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}
	d.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{multiclusterv1alpha1.ClusterName(location)}
	return d
}

// where lists the members that hold the shop/backend Service and those that
// hold its ServiceExport.
func where(t *testing.T, clients map[string]client.Client) (services, exports []string) {
	t.Helper()
	for _, name := range []string{"cluster1", "cluster2", "cluster3"} {
		c := clients[name]
		if c == nil {
			continue
		}
		key := client.ObjectKey{Namespace: "shop", Name: "backend"}
		if err := c.Get(t.Context(), key, &corev1.Service{}); err == nil {
			services = append(services, name)
		} else if !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		if err := c.Get(t.Context(), key, &mcsv1beta1.ServiceExport{}); err == nil {
			exports = append(exports, name)
		}
	}
	return services, exports
}

func TestServiceFollowsItsDeployment(t *testing.T) {
	env, clients := setup(t, 3, "cluster1", "cluster2")
	mgmt := env.Management.Client

	if err := mgmt.Create(t.Context(), backend("cluster1")); err != nil {
		t.Fatal(err)
	}
	mcs := &multiclusterv1alpha1.MultiClusterService{ObjectMeta: metav1.ObjectMeta{Name: "backend", Namespace: "shop",
		Annotations: map[string]string{"io.cilium/global-service": "true"}}}
	mcs.Spec.Selector = map[string]string{"app": "shop", "tier": "backend"}
	mcs.Spec.Ports = []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromString("http")}}
	if err := mgmt.Create(t.Context(), mcs); err != nil {
		t.Fatal(err)
	}

	eventually(t, "Service and export in cluster1 only", func() string {
		s, e := where(t, clients)
		if diff := cmp.Diff([]string{"cluster1"}, s) + cmp.Diff([]string{"cluster1"}, e); diff != "" {
			got := &multiclusterv1alpha1.MultiClusterService{}
			_ = mgmt.Get(t.Context(), client.ObjectKeyFromObject(mcs), got)
			return fmt.Sprintf("%s\nstatus: %+v", diff, got.Status)
		}
		return ""
	})
	svc := &corev1.Service{}
	if err := clients["cluster1"].Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "backend"}, svc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"app": "shop", "tier": "backend"}, svc.Spec.Selector); diff != "" {
		t.Errorf("member Service selector (-want +got):\n%s", diff)
	}
	if svc.Annotations["io.cilium/global-service"] != "true" {
		t.Errorf("member Service lost the mesh annotation: %v", svc.Annotations)
	}

	// The deployment moves to cluster3, which has no ServiceExport CRD: the
	// Service follows, leaves cluster1, and the status says why there is
	// no export in cluster3.
	d := &multiclusterv1alpha1.MultiClusterDeployment{}
	if err := mgmt.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "backend"}, d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{"cluster3"}
	if err := mgmt.Update(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Service follows to cluster3", func() string {
		s, e := where(t, clients)
		return cmp.Diff([]string{"cluster3"}, s) + cmp.Diff([]string(nil), e)
	})
	eventually(t, "status names the clusters and the missing export", func() string {
		got := &multiclusterv1alpha1.MultiClusterService{}
		if err := mgmt.Get(t.Context(), client.ObjectKeyFromObject(mcs), got); err != nil {
			return err.Error()
		}
		if diff := cmp.Diff([]multiclusterv1alpha1.ClusterName{"cluster3"}, got.Status.Clusters); diff != "" {
			return diff
		}
		if got.Status.Deployment != "backend" {
			return fmt.Sprintf("deployment %q", got.Status.Deployment)
		}
		for _, c := range got.Status.Conditions {
			if c.Type == "Ready" && c.Status == metav1.ConditionFalse && c.Reason == "MembersMissing" {
				return ""
			}
		}
		return fmt.Sprintf("conditions %+v", got.Status.Conditions)
	})

	// Deleting the MultiClusterService removes the member Services.
	if err := mgmt.Delete(t.Context(), mcs); err != nil {
		t.Fatal(err)
	}
	eventually(t, "member Services removed", func() string {
		s, e := where(t, clients)
		return cmp.Diff([]string(nil), s) + cmp.Diff([]string(nil), e)
	})
}
