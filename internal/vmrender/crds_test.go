package vmrender

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/meridian-dev/meridian/internal/testenv"
)

// fieldManager applies the rendered objects in this test.
const fieldManager = "meridian-vmrender-test"

// TestRenderedObjectsAgainstProviderCRDs applies every rendering to a real
// API server that has the providers' own CRDs installed
// (testdata/crds/*/, see SOURCE.md), with server-side apply and strict
// field validation: a field the provider's schema does not know fails the
// apply, and the object read back must hold everything applied, so a
// pruned field shows too.
func TestRenderedObjectsAgainstProviderCRDs(t *testing.T) {
	var all []*unstructured.Unstructured
	rendered := map[string][]*unstructured.Unstructured{}
	for _, tc := range renderCases() {
		in := tc.in
		// One namespace per case, so the cases' objects do not meet.
		in.Namespace = tc.name[:min(len(tc.name), 63)]
		in.Namespace = strings.ReplaceAll(strings.ReplaceAll(in.Namespace, ".", "-"), "_", "-")
		objs, err := Render(in)
		if err != nil {
			t.Fatalf("Render(%s): %v", tc.name, err)
		}
		rendered[tc.name] = objs
		all = append(all, objs...)
	}
	crdDir := installableCRDs(t, all)
	env := testenv.Start(t, testenv.Options{ExtraCRDPaths: []string{crdDir}})
	dyn, err := dynamic.NewForConfig(env.Management.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper := env.Management.Client.RESTMapper()
	ctx := t.Context()

	for _, tc := range renderCases() {
		t.Run(tc.name, func(t *testing.T) {
			objs := rendered[tc.name]
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: objs[0].GetNamespace()}}
			if err := env.Management.Client.Create(ctx, ns); err != nil {
				t.Fatalf("failed to create namespace %s: %v", ns.Name, err)
			}
			for _, obj := range objs {
				mapping, err := mapper.RESTMapping(obj.GroupVersionKind().GroupKind(), obj.GroupVersionKind().Version)
				if err != nil {
					t.Fatalf("no resource for %s: %v", obj.GroupVersionKind(), err)
				}
				data, err := json.Marshal(obj.Object)
				if err != nil {
					t.Fatal(err)
				}
				force := true
				got, err := dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.ApplyPatchType, data,
					metav1.PatchOptions{FieldManager: fieldManager, Force: &force, FieldValidation: metav1.FieldValidationStrict})
				if err != nil {
					t.Fatalf("server-side apply of %s %s with strict field validation failed: %v", obj.GetKind(), obj.GetName(), err)
				}
				// What was applied must come back whole: a field the
				// schema prunes would be missing here.
				if diff := cmp.Diff(obj.Object, appliedPart(obj.Object, got.Object)); diff != "" {
					t.Errorf("%s %s read back differs from what was applied (-applied +read back):\n%s", obj.GetKind(), obj.GetName(), diff)
				}
			}
		})
	}

	// The check has teeth: a field no provider knows is refused.
	t.Run("unknown field is refused", func(t *testing.T) {
		for _, objs := range [][]*unstructured.Unstructured{rendered["azure-ubuntu-24.04"], rendered["gcp-ubuntu-24.04"], rendered["aws-ubuntu-24.04"]} {
			obj := objs[len(objs)-1].DeepCopy()
			if err := unstructured.SetNestedField(obj.Object, "yes", "spec", "startAt"); err != nil {
				t.Fatal(err)
			}
			mapping, err := mapper.RESTMapping(obj.GroupVersionKind().GroupKind(), obj.GroupVersionKind().Version)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(obj.Object)
			force := true
			_, err = dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.ApplyPatchType, data,
				metav1.PatchOptions{FieldManager: fieldManager, Force: &force, FieldValidation: metav1.FieldValidationStrict})
			if err == nil || !strings.Contains(err.Error(), "startAt") {
				t.Errorf("apply of %s with spec.startAt: error = %v, want one naming the unknown field", obj.GetKind(), err)
			}
		}
	})
}

// appliedPart returns the part of got that has the fields of applied:
// what the server added (status, defaults, metadata it owns) is left out,
// what it dropped stays missing.
func appliedPart(applied, got any) any {
	switch a := applied.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := make(map[string]any, len(a))
		for k, av := range a {
			if gv, ok := g[k]; ok {
				out[k] = appliedPart(av, gv)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(a) {
			return got
		}
		out := make([]any, len(a))
		for i := range a {
			out[i] = appliedPart(a[i], g[i])
		}
		return out
	default:
		return got
	}
}

// installableCRDs writes the providers' CRDs of testdata/crds to a folder
// envtest installs. The schemas are the providers' as they are; only ASO's
// conversion changes. ASO's CRDs convert between versions with a webhook
// the operator serves, and no ASO runs here, so each multi-version ASO CRD
// gets conversion None and stores the storage variant of the version the
// chart renders ("<version>storage", which has the same fields), so that
// nothing needs converting.
func installableCRDs(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	renderedVersion := map[string]string{} // group/kind -> version
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		renderedVersion[gvk.Group+"/"+gvk.Kind] = gvk.Version
	}
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join("testdata", "crds", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in testdata/crds: %v", err)
	}
	installed := map[string]bool{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			t.Fatalf("failed to read CRD %s: %v", path, err)
		}
		key := crd.Spec.Group + "/" + crd.Spec.Names.Kind
		installed[key] = true
		if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter {
			version, ok := renderedVersion[key]
			if !ok {
				t.Fatalf("CRD %s converts by webhook but the chart renders no %s", path, key)
			}
			crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
			storage := version + "storage"
			if !slices.ContainsFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == storage }) {
				storage = version
			}
			for i := range crd.Spec.Versions {
				crd.Spec.Versions[i].Storage = crd.Spec.Versions[i].Name == storage
			}
		}
		out, err := yaml.Marshal(&crd)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s_%s.yaml", filepath.Base(filepath.Dir(path)), filepath.Base(path))
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for key := range renderedVersion {
		if !installed[key] {
			t.Fatalf("the chart renders %s, which has no CRD in testdata/crds", key)
		}
	}
	return dir
}
