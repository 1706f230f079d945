package overrides_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/overrides"
)

func TestImage(t *testing.T) {
	tests := []struct {
		ref  string
		o    multiclusterv1alpha1.ImageOverride
		want string
	}{
		{"nginx:1.25", multiclusterv1alpha1.ImageOverride{Registry: "registry.eu.example.com"}, "registry.eu.example.com/nginx:1.25"},
		{"docker.io/library/nginx:1.25", multiclusterv1alpha1.ImageOverride{Registry: "registry.eu.example.com"}, "registry.eu.example.com/library/nginx:1.25"},
		{"localhost:5000/team/web@sha256:abc", multiclusterv1alpha1.ImageOverride{Tag: "v2"}, "localhost:5000/team/web:v2"},
		{"registry.k8s.io/pause:3.10", multiclusterv1alpha1.ImageOverride{Repository: "other/pause"}, "registry.k8s.io/other/pause:3.10"},
		{"team/web", multiclusterv1alpha1.ImageOverride{}, "team/web"},
	}
	for _, tc := range tests {
		if got := overrides.Image(tc.ref, tc.o); got != tc.want {
			t.Errorf("Image(%q, %+v) = %q, want %q", tc.ref, tc.o, got, tc.want)
		}
	}
}

func deployment() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{"replicas": int64(2), "template": map[string]any{"spec": map[string]any{
			"initContainers": []any{map[string]any{"name": "init", "image": "busybox:1.36"}},
			"containers": []any{
				map[string]any{"name": "web", "image": "team/web:v1", "env": []any{map[string]any{"name": "MODE", "value": "eu"}}},
				map[string]any{"name": "sidecar", "image": "envoy:1.30"},
			},
		}}},
	}}
}

var templatePath = []string{"spec", "template"}

func TestApply(t *testing.T) {
	eu := overrides.Cluster{Name: "paris", Region: "eu-west", Labels: map[string]string{"jurisdiction": "eu"}}
	us := overrides.Cluster{Name: "virginia", Region: "us-east"}
	euOnly := &multiclusterv1alpha1.ClusterTarget{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"jurisdiction": "eu"}}}
	rules := []multiclusterv1alpha1.OverrideRule{
		{Name: "eu-registry", TargetClusters: euOnly, Image: &multiclusterv1alpha1.ImageOverride{Registry: "registry.eu.example.com"}},
		{Name: "web-env", Containers: []string{"web"}, Env: []corev1.EnvVar{{Name: "MODE", Value: "local"}, {Name: "REGION", Value: "set"}}, Args: []string{"--fast"}},
		{Name: "virginia-only", TargetClusters: &multiclusterv1alpha1.ClusterTarget{Names: []multiclusterv1alpha1.ClusterName{"virginia"}, Regions: []string{"us-east"}},
			Labels: map[string]string{"tier": "us"}, Annotations: map[string]string{"note": "us"},
			JSONPatch: []multiclusterv1alpha1.JSONPatchOperation{{Op: "add", Path: "/spec/template/spec/nodeSelector", Value: &runtime.RawExtension{Raw: []byte(`{"disk":"ssd"}`)}}}},
	}
	obj := deployment()
	applied, err := overrides.Apply(obj, templatePath, eu, rules)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"eu-registry", "web-env"}, applied); diff != "" {
		t.Errorf("rules applied in eu (-want +got):\n%s", diff)
	}
	images := func(o *unstructured.Unstructured) []string {
		var out []string
		for _, list := range []string{"initContainers", "containers"} {
			cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", list)
			for _, c := range cs {
				out = append(out, c.(map[string]any)["image"].(string))
			}
		}
		return out
	}
	if diff := cmp.Diff([]string{"registry.eu.example.com/busybox:1.36", "registry.eu.example.com/team/web:v1", "registry.eu.example.com/envoy:1.30"}, images(obj)); diff != "" {
		t.Errorf("images in eu (-want +got):\n%s", diff)
	}
	cs, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
	web := cs[0].(map[string]any)
	if diff := cmp.Diff([]any{map[string]any{"name": "MODE", "value": "local"}, map[string]any{"name": "REGION", "value": "set"}}, web["env"]); diff != "" {
		t.Errorf("web's env (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"--fast"}, web["args"]); diff != "" {
		t.Errorf("web's args (-want +got):\n%s", diff)
	}
	if _, has := cs[1].(map[string]any)["args"]; has {
		t.Errorf("the sidecar got args; the rule names only web")
	}

	obj = deployment()
	applied, err = overrides.Apply(obj, templatePath, us, rules)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"web-env", "virginia-only"}, applied); diff != "" {
		t.Errorf("rules applied in us (-want +got):\n%s", diff)
	}
	sel, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "template", "spec", "nodeSelector")
	if diff := cmp.Diff(map[string]string{"disk": "ssd"}, sel); diff != "" {
		t.Errorf("nodeSelector after the patch (-want +got):\n%s", diff)
	}
	if obj.GetLabels()["tier"] != "us" || obj.GetAnnotations()["note"] != "us" {
		t.Errorf("labels %v annotations %v; want tier=us and note=us", obj.GetLabels(), obj.GetAnnotations())
	}
}

func TestApplyRefusesWhatDoesNotApply(t *testing.T) {
	c := overrides.Cluster{Name: "paris"}
	tests := []struct {
		name     string
		obj      *unstructured.Unstructured
		template []string
		rule     multiclusterv1alpha1.OverrideRule
		want     string
	}{
		{
			name: "a patch on a path that does not exist", obj: deployment(), template: templatePath,
			rule: multiclusterv1alpha1.OverrideRule{Name: "bad", JSONPatch: []multiclusterv1alpha1.JSONPatchOperation{{Op: "replace", Path: "/spec/nope/x", Value: &runtime.RawExtension{Raw: []byte(`1`)}}}},
			want: "spec.overrides[0].jsonPatch[0]: replace /spec/nope/x does not apply to Deployment web",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.obj.DeepCopy()
			_, err := overrides.Apply(tc.obj, tc.template, c, []multiclusterv1alpha1.OverrideRule{tc.rule})
			if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
				t.Fatalf("Apply: %v; want an error starting %q", err, tc.want)
			}
			if diff := cmp.Diff(before.Object, tc.obj.Object); diff != "" {
				t.Errorf("the object changed though a rule failed (-before +after):\n%s", diff)
			}
		})
	}
}

// A policy's rules apply to every object it places: image, env and args
// leave an object without pods alone.
func TestApplyLeavesObjectsWithoutPods(t *testing.T) {
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}, "data": map[string]any{"a": "b"}}}
	before := cm.DeepCopy()
	if _, err := overrides.Apply(cm, nil, overrides.Cluster{Name: "paris"}, []multiclusterv1alpha1.OverrideRule{{Name: "img", Image: &multiclusterv1alpha1.ImageOverride{Tag: "v2"}}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before.Object, cm.Object); diff != "" {
		t.Errorf("the ConfigMap changed (-before +after):\n%s", diff)
	}
}
