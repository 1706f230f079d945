package workload_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/workload"
)

func TestPolicyDefaults(t *testing.T) {
	tests := []struct {
		name string
		pl   multiclusterv1alpha1.Placement
		want placement.Policy
	}{
		{name: "locations mean cluster affinity", pl: multiclusterv1alpha1.Placement{Locations: []multiclusterv1alpha1.ClusterName{"a"}}, want: placement.PolicyClusterAffinity},
		{name: "nothing means worst fit", want: placement.PolicyWorstFit},
		{name: "an explicit policy wins", pl: multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.TrafficAware, Locations: []multiclusterv1alpha1.ClusterName{"a"}}, want: placement.PolicyTrafficAware},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, workload.Policy(tc.pl)); diff != "" {
				t.Errorf("Policy() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}},
		Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}}},
			{Name: "b", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}},
		},
	}
	pl := multiclusterv1alpha1.Placement{
		Locations:    []multiclusterv1alpha1.ClusterName{"nantes", "rennes"},
		Substitution: &multiclusterv1alpha1.Substitution{Enabled: true},
	}
	w, err := workload.New(workload.Key("MultiClusterDeployment", "shop", "web"), placement.KindDeployment, 3, spec, pl)
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Key                    string
		MilliCPU, Memory, Pods int64
		Locations              []string
		Substitution, Bursting bool
	}
	want := view{Key: "MultiClusterDeployment/shop/web", MilliCPU: 2000, Memory: 1 << 30, Pods: 1, Locations: []string{"nantes", "rennes"}, Substitution: true}
	got := view{w.Key, w.PodRequests.MilliCPU, w.PodRequests.Memory, w.PodRequests.Pods, w.Locations, w.Substitution, w.Bursting}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("New() (-want +got):\n%s", diff)
	}

	pl.LatencyLimit = &multiclusterv1alpha1.LatencyLimit{Origin: "rennes", MaxRTT: metav1.Duration{Duration: 20 * time.Millisecond}}
	pl.Residency = &multiclusterv1alpha1.Residency{Jurisdictions: []string{"EU"}}
	w, err = workload.New("k", placement.KindDeployment, 1, spec, pl)
	if err != nil {
		t.Fatal(err)
	}
	type limits struct {
		MaxLatency    time.Duration
		LatencyOrigin string
		Jurisdictions []string
	}
	if diff := cmp.Diff(limits{20 * time.Millisecond, "rennes", []string{"EU"}}, limits{w.MaxLatency, w.LatencyOrigin, w.Jurisdictions}); diff != "" {
		t.Errorf("New() latency limit and residency (-want +got):\n%s", diff)
	}

	pl.ClusterSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}
	_, err = workload.New("k", placement.KindDeployment, 1, spec, pl)
	if err == nil || !strings.Contains(err.Error(), "spec.placement.clusterSelector") {
		t.Errorf("New() with a bad selector = %v, want an error naming spec.placement.clusterSelector", err)
	}
}
