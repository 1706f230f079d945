package overrides

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// Cluster is what a rule's targetClusters match.
type Cluster struct {
	Name, Region string
	Labels       map[string]string
}

// Targets reports whether t selects c; a nil t selects every cluster. An
// error names the label selector that cannot be parsed.
func Targets(t *multiclusterv1alpha1.ClusterTarget, c Cluster) (bool, error) {
	if t == nil {
		return true, nil
	}
	if len(t.Names) > 0 && !slices.Contains(t.Names, multiclusterv1alpha1.ClusterName(c.Name)) {
		return false, nil
	}
	if len(t.Regions) > 0 && !slices.Contains(t.Regions, c.Region) {
		return false, nil
	}
	if t.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil {
			return false, fmt.Errorf("targetClusters.labelSelector: %w", err)
		}
		if !sel.Matches(labels.Set(c.Labels)) {
			return false, nil
		}
	}
	return true, nil
}

// Apply changes obj for cluster c by every rule that targets it, in order,
// and returns the names of those applied. podTemplate is the path of obj's
// pod template (nil for a kind without one). An error names the rule's
// field that does not apply (spec.overrides[i].jsonPatch[j]); obj is then
// left as it was.
func Apply(obj *unstructured.Unstructured, podTemplate []string, c Cluster, rules []multiclusterv1alpha1.OverrideRule) ([]string, error) {
	out := obj.DeepCopy()
	var applied []string
	for i, r := range rules {
		field := fmt.Sprintf("spec.overrides[%d]", i)
		ok, err := Targets(r.TargetClusters, c)
		if err != nil {
			return nil, fmt.Errorf("%s.%w", field, err)
		}
		if !ok {
			continue
		}
		if err := containers(out, podTemplate, field, r); err != nil {
			return nil, err
		}
		if len(r.Labels) > 0 {
			l := out.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			for k, v := range r.Labels {
				l[k] = v
			}
			out.SetLabels(l)
		}
		if len(r.Annotations) > 0 {
			a := out.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			for k, v := range r.Annotations {
				a[k] = v
			}
			out.SetAnnotations(a)
		}
		for j, op := range r.JSONPatch {
			if err := patch(out, op); err != nil {
				return nil, fmt.Errorf("%s.jsonPatch[%d]: %s %s does not apply to %s %s: %w", field, j, op.Op, op.Path, obj.GetKind(), obj.GetName(), err)
			}
		}
		applied = append(applied, r.Name)
	}
	out.DeepCopyInto(obj)
	return applied, nil
}

// containers applies a rule's image, env and args to the pod template's
// containers; an object without a pod template is left alone.
func containers(obj *unstructured.Unstructured, podTemplate []string, field string, r multiclusterv1alpha1.OverrideRule) error {
	if r.Image == nil && len(r.Env) == 0 && r.Args == nil {
		return nil
	}
	if podTemplate == nil {
		return nil // a kind without pods, such as a ConfigMap the same policy places: nothing to change
	}
	for _, list := range []string{"initContainers", "containers"} {
		path := slices.Concat(podTemplate, []string{"spec", list})
		items, found, err := unstructured.NestedSlice(obj.Object, path...)
		if err != nil {
			return fmt.Errorf("%s: %s of %s %s: %w", field, strings.Join(path, "."), obj.GetKind(), obj.GetName(), err)
		}
		if !found {
			continue
		}
		for k, item := range items {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			name, _ := m["name"].(string)
			if len(r.Containers) > 0 && !slices.Contains(r.Containers, name) {
				continue
			}
			if r.Image != nil {
				img, _ := m["image"].(string)
				m["image"] = Image(img, *r.Image)
			}
			if len(r.Env) > 0 {
				if err := setEnv(m, r.Env); err != nil {
					return fmt.Errorf("%s.env: %w", field, err)
				}
			}
			if r.Args != nil {
				args := make([]any, len(r.Args))
				for a, v := range r.Args {
					args[a] = v
				}
				m["args"] = args
			}
			items[k] = m
		}
		if err := unstructured.SetNestedSlice(obj.Object, items, path...); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	}
	return nil
}

// setEnv sets env in a container, replacing variables of the same name.
func setEnv(container map[string]any, env []corev1.EnvVar) error {
	have, _ := container["env"].([]any)
	for _, e := range env {
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		replaced := false
		for i, h := range have {
			if hm, ok := h.(map[string]any); ok && hm["name"] == e.Name {
				have[i], replaced = v, true
			}
		}
		if !replaced {
			have = append(have, v)
		}
	}
	container["env"] = have
	return nil
}

// patch applies one JSON patch operation to obj.
func patch(obj *unstructured.Unstructured, op multiclusterv1alpha1.JSONPatchOperation) error {
	o := map[string]any{"op": string(op.Op), "path": op.Path}
	if op.From != "" {
		o["from"] = op.From
	}
	if op.Value != nil {
		var v any
		if err := json.Unmarshal(op.Value.Raw, &v); err != nil {
			return fmt.Errorf("value is not JSON: %w", err)
		}
		o["value"] = v
	}
	ops, err := json.Marshal([]any{o})
	if err != nil {
		return err
	}
	p, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return err
	}
	doc, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	patched, err := p.Apply(doc)
	if err != nil {
		return err
	}
	return obj.UnmarshalJSON(patched)
}

// Image returns ref with the parts o gives replaced: the registry, the
// repository, the tag (which drops a digest).
func Image(ref string, o multiclusterv1alpha1.ImageOverride) string {
	rest, digest, _ := strings.Cut(ref, "@")
	registry, repo := "", rest
	if i := strings.Index(rest, "/"); i > 0 {
		if first := rest[:i]; strings.ContainsAny(first, ".:") || first == "localhost" {
			registry, repo = first, rest[i+1:]
		}
	}
	tag := ""
	if i := strings.LastIndex(repo, ":"); i > 0 {
		repo, tag = repo[:i], repo[i+1:]
	}
	if o.Registry != "" {
		registry = o.Registry
	}
	if o.Repository != "" {
		repo = o.Repository
	}
	if o.Tag != "" {
		tag, digest = o.Tag, ""
	}
	out := repo
	if registry != "" {
		out = registry + "/" + repo
	}
	if tag != "" {
		out += ":" + tag
	}
	if digest != "" {
		out += "@" + digest
	}
	return out
}
