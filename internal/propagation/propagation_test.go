package propagation_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/propagation"
)

func TestDeploymentCarriesItsOwner(t *testing.T) {
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{
		Name: "web", Namespace: "shop", UID: "u-1", Generation: 4, Labels: map[string]string{"team": "a"},
	}}
	mcd.Spec.Replicas = ptr.To[int32](10)
	mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	mcd.Spec.Template.Labels = map[string]string{"app": "web"}
	mcd.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}

	d := propagation.Deployment(mcd, 3)

	owner := map[string]string{
		multiclusterv1alpha1.LabelManagedBy: "meridian", multiclusterv1alpha1.LabelOwnerKind: "MultiClusterDeployment",
		multiclusterv1alpha1.LabelOwnerNamespace: "shop", multiclusterv1alpha1.LabelOwnerName: "web",
	}
	type view struct {
		Replicas                    int32
		Labels, TemplateLabels, Ann map[string]string
	}
	want := view{
		Replicas:       3,
		Labels:         map[string]string{"team": "a", multiclusterv1alpha1.LabelManagedBy: "meridian", multiclusterv1alpha1.LabelOwnerKind: "MultiClusterDeployment", multiclusterv1alpha1.LabelOwnerNamespace: "shop", multiclusterv1alpha1.LabelOwnerName: "web"},
		TemplateLabels: map[string]string{"app": "web", multiclusterv1alpha1.LabelManagedBy: "meridian", multiclusterv1alpha1.LabelOwnerKind: "MultiClusterDeployment", multiclusterv1alpha1.LabelOwnerNamespace: "shop", multiclusterv1alpha1.LabelOwnerName: "web"},
		Ann:            map[string]string{multiclusterv1alpha1.AnnotationOwnerUID: "u-1", multiclusterv1alpha1.AnnotationOwnerGeneration: "4"},
	}
	got := view{*d.Spec.Replicas, d.Labels, d.Spec.Template.Labels, d.Annotations}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("member Deployment (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"app": "web"}, mcd.Spec.Template.Labels); diff != "" {
		t.Errorf("building the member Deployment changed the owner's template (-want +got):\n%s", diff)
	}
	if o, ok := propagation.OwnerOf(d); !ok || o != (propagation.Owner{Kind: "MultiClusterDeployment", Namespace: "shop", Name: "web", UID: "u-1"}) {
		t.Errorf("OwnerOf(member Deployment) = %+v, %v", o, ok)
	}
	if diff := cmp.Diff(owner, map[string]string(propagation.OwnerOfDeployment(mcd).Selector())); diff != "" {
		t.Errorf("owner selector (-want +got):\n%s", diff)
	}
}

func TestOwnerOfIgnoresObjectsMeridianDidNotMake(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
	}{
		{name: "no labels"},
		{name: "another manager", labels: map[string]string{multiclusterv1alpha1.LabelManagedBy: "helm", multiclusterv1alpha1.LabelOwnerName: "web"}},
		{name: "managed but no owner", labels: map[string]string{multiclusterv1alpha1.LabelManagedBy: "meridian"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Labels: tc.labels}}
			if o, ok := propagation.OwnerOf(obj); ok {
				t.Errorf("OwnerOf() = %+v, true; want false", o)
			}
		})
	}
}

func TestServiceKeepsMeshAnnotationsButNotKubectls(t *testing.T) {
	mcs := &multiclusterv1alpha1.MultiClusterService{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", Annotations: map[string]string{
		"io.cilium/global-service": "true", corev1.LastAppliedConfigAnnotation: "{}",
	}}}
	mcs.Spec.Selector = map[string]string{"app": "api"}
	mcs.Spec.Ports = []corev1.ServicePort{{Port: 80}}
	s := propagation.Service(mcs)
	if _, ok := s.Annotations[corev1.LastAppliedConfigAnnotation]; ok {
		t.Errorf("member Service carries kubectl's last-applied annotation of the management object")
	}
	if s.Annotations["io.cilium/global-service"] != "true" {
		t.Errorf("member Service lost the mesh annotation: %v", s.Annotations)
	}
	if e := propagation.ServiceExport(mcs); e.Name != "api" || e.Namespace != "shop" || e.Kind != "ServiceExport" {
		t.Errorf("ServiceExport = %s %s/%s", e.Kind, e.Namespace, e.Name)
	}
}

func TestShareCompletions(t *testing.T) {
	tests := []struct {
		name        string
		completions *int32
		parallelism []int32
		want        []int32
	}{
		{name: "in proportion", completions: ptr.To[int32](24), parallelism: []int32{2, 8, 2}, want: []int32{4, 16, 4}},
		{name: "largest remainder adds up", completions: ptr.To[int32](10), parallelism: []int32{1, 1, 1}, want: []int32{4, 3, 3}},
		{name: "one cluster", completions: ptr.To[int32](5), parallelism: []int32{3}, want: []int32{5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []int32
			for _, s := range propagation.ShareCompletions(tc.completions, tc.parallelism) {
				got = append(got, *s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ShareCompletions() (-want +got):\n%s", diff)
			}
		})
	}
	if got := propagation.ShareCompletions(nil, []int32{1, 2}); got[0] != nil || got[1] != nil {
		t.Errorf("ShareCompletions(nil) = %v, want nil shares", got)
	}
}

// TestDurationsBecomeMemberSeconds: minReady and activeDeadline, durations
// of whole seconds, are the member objects' integer seconds.
func TestDurationsBecomeMemberSeconds(t *testing.T) {
	tests := []struct {
		name               string
		minReady, deadline *metav1.Duration
		wantMinReady       int32
		wantDeadline       *int64
	}{
		{name: "unset", wantMinReady: 0},
		{name: "seconds, minutes and hours", minReady: &metav1.Duration{Duration: 30 * time.Second}, deadline: &metav1.Duration{Duration: 90 * time.Minute},
			wantMinReady: 30, wantDeadline: ptr.To[int64](5400)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mcd := &multiclusterv1alpha1.MultiClusterDeployment{}
			mcd.Spec.Selector = &metav1.LabelSelector{}
			mcd.Spec.MinReady = tc.minReady
			mcj := &multiclusterv1alpha1.MultiClusterJob{}
			mcj.Spec.ActiveDeadline = tc.deadline
			got := []any{propagation.Deployment(mcd, 1).Spec.MinReadySeconds, propagation.Job(mcj, 1, nil).Spec.ActiveDeadlineSeconds}
			if diff := cmp.Diff([]any{tc.wantMinReady, tc.wantDeadline}, got); diff != "" {
				t.Errorf("member seconds (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCopyLeavesClusterIPsToEachMemberButKeepsHeadless(t *testing.T) {
	owner := propagation.Owner{Kind: "ResourcePlacement", Namespace: "shop", Name: "service-db", UID: "u1"}
	for ip, want := range map[string]string{"10.0.0.7": "", "None": "None"} {
		svc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "db", "namespace": "shop"},
			"spec": map[string]any{"clusterIP": ip, "clusterIPs": []any{ip}, "ports": []any{map[string]any{"port": int64(5432)}}},
		}}
		got, err := propagation.Copy(svc, owner)
		if err != nil {
			t.Fatal(err)
		}
		if v, _, _ := unstructured.NestedString(got.Object, "spec", "clusterIP"); v != want {
			t.Errorf("template clusterIP %q: copy's %q, want %q", ip, v, want)
		}
	}
}

func TestDividedCopyCarriesItsShareAndOwner(t *testing.T) {
	owner := propagation.Owner{Kind: "ResourcePlacement", Namespace: "shop", Name: "statefulset.apps-db", UID: "u1"}
	ss := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": "db", "namespace": "shop", "generation": int64(3)},
		"spec": map[string]any{"replicas": int64(5), "serviceName": "db", "selector": map[string]any{"matchLabels": map[string]any{"app": "db"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "db"}}}},
		"status": map[string]any{"replicas": int64(5)},
	}}
	got, err := propagation.DividedCopy(ss, owner, 42, 2)
	if err != nil {
		t.Fatal(err)
	}
	replicas, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas")
	service, _, _ := unstructured.NestedString(got.Object, "spec", "serviceName")
	labels, _, _ := unstructured.NestedStringMap(got.Object, "spec", "template", "metadata", "labels")
	_, hasStatus := got.Object["status"]
	line := fmt.Sprintf("replicas %d, serviceName %s, pod app=%s owner=%s, generation %s, status %v",
		replicas, service, labels["app"], labels[multiclusterv1alpha1.LabelOwnerName], got.GetAnnotations()[multiclusterv1alpha1.AnnotationOwnerGeneration], hasStatus)
	if want := "replicas 2, serviceName db, pod app=db owner=statefulset.apps-db, generation 42, status false"; line != want {
		t.Errorf("member copy: %s\nwant %s", line, want)
	}
	if _, err := propagation.DividedCopy(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}, owner, 1, 1); err == nil {
		t.Error("a ConfigMap was divided; want an error")
	}
}
