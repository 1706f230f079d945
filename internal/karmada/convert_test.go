package karmada_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/karmada"
	"github.com/meridian-dev/meridian/internal/testenv"
)

func TestConvert(t *testing.T) {
	r, err := karmada.Convert(testenv.ReadManifests(t, "testdata/karmada.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []runtime.Object{
		&multiclusterv1alpha1.PropagationPolicy{
			TypeMeta:   metav1.TypeMeta{APIVersion: "multicluster.meridian.dev/v1alpha1", Kind: "PropagationPolicy"},
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
			Spec: multiclusterv1alpha1.PropagationPolicySpec{
				ResourceSelectors: []multiclusterv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
				Priority:          ptr.To[int32](5),
				Dependencies:      multiclusterv1alpha1.DependenciesFollow,
				Placement: multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.ClusterAffinity,
					Locations: []multiclusterv1alpha1.ClusterName{"member1", "member2"}, NumberOfLocations: ptr.To[int32](2)},
				Overrides: []multiclusterv1alpha1.OverrideRule{{
					Name:           "eu-0",
					TargetClusters: &multiclusterv1alpha1.ClusterTarget{Names: []multiclusterv1alpha1.ClusterName{"member2"}},
					Image:          &multiclusterv1alpha1.ImageOverride{Registry: "registry.eu.example.com"},
					Labels:         map[string]string{"tier": "eu"},
					JSONPatch: []multiclusterv1alpha1.JSONPatchOperation{{Op: "add", Path: "/spec/template/spec/nodeSelector",
						Value: &runtime.RawExtension{Raw: []byte(`{"disk":"ssd"}`)}}},
				}},
			},
		},
		&multiclusterv1alpha1.ClusterPropagationPolicy{
			TypeMeta:   metav1.TypeMeta{APIVersion: "multicluster.meridian.dev/v1alpha1", Kind: "ClusterPropagationPolicy"},
			ObjectMeta: metav1.ObjectMeta{Name: "configs"},
			Spec: multiclusterv1alpha1.PropagationPolicySpec{
				ResourceSelectors: []multiclusterv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop",
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"shared": "true"}}}},
				Dependencies: multiclusterv1alpha1.DependenciesNone,
				Placement: multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit,
					ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}},
			},
		},
	}
	if diff := cmp.Diff(want, r.Policies); diff != "" {
		t.Errorf("Convert (-want +got):\n%s", diff)
	}
	// Every field without an equivalent is named.
	for _, w := range []string{
		"PropagationPolicy shop/web: spec.placement.clusterAffinity.exclude: not carried over",
		"PropagationPolicy shop/web: spec.failover: not carried over",
		"OverridePolicy shop/eu: spec.overrideRules[0].overriders.argsOverrider: not carried over",
	} {
		found := false
		for _, got := range r.Warnings {
			found = found || strings.HasPrefix(got, w)
		}
		if !found {
			t.Errorf("no warning starting %q; warnings:\n%s", w, strings.Join(r.Warnings, "\n"))
		}
	}
}

func TestConvertRefusesOtherObjects(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"}}}
	_, err := karmada.Convert([]*unstructured.Unstructured{u})
	if err == nil || !strings.Contains(err.Error(), "Deployment web: not a Karmada policy (apiVersion apps/v1)") {
		t.Errorf("Convert(Deployment) = %v; want it refused, naming it", err)
	}
}

// TestExampleApplicationConvertsToItsPolicies converts the example
// application's Karmada policies (examples/plain-manifests/karmada) and
// compares them with the ones Meridian's example applies: the same but for
// web's substitution and bursting, which Karmada writes as ordered
// clusterAffinities and are added by hand.
func TestExampleApplicationConvertsToItsPolicies(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "plain-manifests")
	r, err := karmada.Convert(testenv.ReadManifests(t, filepath.Join(dir, "karmada", "policies.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) > 0 {
		t.Errorf("warnings converting the example: %v; want none", r.Warnings)
	}
	got := map[string]multiclusterv1alpha1.PropagationPolicySpec{}
	for _, o := range r.Policies {
		p := o.(*multiclusterv1alpha1.PropagationPolicy)
		for i := range p.Spec.Overrides {
			p.Spec.Overrides[i].Name = "" // Karmada's rules have no names
		}
		got[p.Name] = p.Spec
	}
	want := map[string]multiclusterv1alpha1.PropagationPolicySpec{}
	for _, u := range testenv.ReadManifests(t, filepath.Join(dir, "policy.yaml")) {
		p := &multiclusterv1alpha1.PropagationPolicy{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, p); err != nil {
			t.Fatal(err)
		}
		if p.Name == "web" {
			p.Spec.Placement.Substitution, p.Spec.Placement.Bursting = nil, nil // added by hand
		}
		for i := range p.Spec.Overrides {
			p.Spec.Overrides[i].Name = ""
		}
		if p.Spec.Dependencies == "" {
			p.Spec.Dependencies = multiclusterv1alpha1.DependenciesFollow // the default
		}
		want[p.Name] = p.Spec
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the example's policies (-ours +converted from Karmada's):\n%s", diff)
	}
}

// TestOverrideTargetsByRegionNeverWiden: Karmada ANDs a field selector's
// expressions; a converted rule targets the regions all of them allow, and
// a rule with an expression Meridian cannot express is left out (with a
// warning) rather than applied to more clusters than Karmada's.
func TestOverrideTargetsByRegionNeverWiden(t *testing.T) {
	file := filepath.Join(t.TempDir(), "karmada.yaml")
	if err := os.WriteFile(file, []byte(`
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: eu, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  overrideRules:
    - targetCluster:
        fieldSelector:
          matchExpressions:
            - {key: region, operator: In, values: [rennes, lille]}
            - {key: region, operator: In, values: [lille, nantes]}
      overriders: {labelsOverrider: [{operator: add, value: {a: "1"}}]}
    - targetCluster:
        fieldSelector:
          matchExpressions:
            - {key: region, operator: In, values: [rennes]}
            - {key: provider, operator: In, values: [aws]}
      overriders: {labelsOverrider: [{operator: add, value: {b: "1"}}]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := karmada.Convert(testenv.ReadManifests(t, file))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rule := range r.Policies[0].(*multiclusterv1alpha1.PropagationPolicy).Spec.Overrides {
		got = append(got, fmt.Sprintf("%s: regions %v", rule.Name, rule.TargetClusters.Regions))
	}
	if diff := cmp.Diff([]string{"eu-0: regions [lille]"}, got); diff != "" {
		t.Errorf("converted rules (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "spec.overrideRules[1].targetCluster.fieldSelector.matchExpressions[1]: only region In")
	}) {
		t.Errorf("warnings %v; want one naming the provider expression", r.Warnings)
	}
}
