package karmada

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// Group is Karmada's policy API group.
const Group = "policy.karmada.io"

// Result is a conversion: Meridian's policies, and what did not carry over.
type Result struct {
	// Policies are PropagationPolicies and ClusterPropagationPolicies.
	Policies []runtime.Object
	Warnings []string
}

// Convert converts Karmada's policies among objs; objects of other groups
// are refused, as errors naming them.
func Convert(objs []*unstructured.Unstructured) (*Result, error) {
	r := &Result{}
	type converted struct {
		obj       runtime.Object
		spec      *multiclusterv1alpha1.PropagationPolicySpec
		namespace string
	}
	var policies []converted
	var overrides []*unstructured.Unstructured
	for _, u := range objs {
		gv := u.GroupVersionKind()
		if gv.Group != Group {
			return nil, fmt.Errorf("%s %s: not a Karmada policy (apiVersion %s); give only %s objects", u.GetKind(), u.GetName(), u.GetAPIVersion(), Group)
		}
		switch u.GetKind() {
		case "PropagationPolicy", "ClusterPropagationPolicy":
			spec, warnings := r.propagation(u)
			r.Warnings = append(r.Warnings, warnings...)
			meta := metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), Labels: u.GetLabels()}
			tm := metav1.TypeMeta{APIVersion: multiclusterv1alpha1.GroupVersion.String(), Kind: u.GetKind()}
			var obj runtime.Object
			if u.GetKind() == "PropagationPolicy" {
				obj = &multiclusterv1alpha1.PropagationPolicy{TypeMeta: tm, ObjectMeta: meta, Spec: *spec}
			} else {
				meta.Namespace = ""
				obj = &multiclusterv1alpha1.ClusterPropagationPolicy{TypeMeta: tm, ObjectMeta: meta, Spec: *spec}
			}
			policies = append(policies, converted{obj: obj, spec: specOf(obj), namespace: meta.Namespace})
		case "OverridePolicy", "ClusterOverridePolicy":
			overrides = append(overrides, u)
		default:
			return nil, fmt.Errorf("%s %s: not a kind this converter knows (PropagationPolicy, ClusterPropagationPolicy, OverridePolicy, ClusterOverridePolicy)", u.GetKind(), u.GetName())
		}
	}
	// Karmada applies cluster override policies first, then namespaced
	// ones; within each, the less specific first, then by name.
	slices.SortStableFunc(overrides, func(a, b *unstructured.Unstructured) int {
		return cmp.Or(cmp.Compare(a.GetKind(), b.GetKind()), cmp.Compare(specificity(a), specificity(b)), cmp.Compare(a.GetName(), b.GetName()))
	})
	for _, op := range overrides {
		rules, warnings := r.overrideRules(op)
		r.Warnings = append(r.Warnings, warnings...)
		selectors, _, _ := unstructured.NestedSlice(op.Object, "spec", "resourceSelectors")
		attached := 0
		for _, p := range policies {
			if op.GetKind() == "OverridePolicy" && p.namespace != op.GetNamespace() {
				continue
			}
			if len(selectors) > 0 && !sameSelectors(selectors, p.spec.ResourceSelectors) {
				continue
			}
			p.spec.Overrides = append(p.spec.Overrides, rules...)
			attached++
		}
		if attached == 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s %s: no converted policy selects exactly its resources; add its rules to the policy that places them (Meridian's overrides live in the PropagationPolicy)", op.GetKind(), key(op)))
		}
	}
	for _, p := range policies {
		r.Policies = append(r.Policies, p.obj)
	}
	return r, nil
}

// specificity is an override policy's most specific selector: 3 by name,
// 2 by labels, 1 by kind alone or no selector (Karmada's implicit
// priority).
func specificity(u *unstructured.Unstructured) int {
	best := 1
	selectors, _, _ := unstructured.NestedSlice(u.Object, "spec", "resourceSelectors")
	for _, s := range selectors {
		m, _ := s.(map[string]any)
		switch {
		case m["name"] != nil && m["name"] != "":
			best = max(best, 3)
		case m["labelSelector"] != nil:
			best = max(best, 2)
		}
	}
	return best
}

func specOf(obj runtime.Object) *multiclusterv1alpha1.PropagationPolicySpec {
	switch p := obj.(type) {
	case *multiclusterv1alpha1.PropagationPolicy:
		return &p.Spec
	case *multiclusterv1alpha1.ClusterPropagationPolicy:
		return &p.Spec
	}
	return nil
}

func key(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// propagation converts a Karmada propagation policy's spec.
func (r *Result) propagation(u *unstructured.Unstructured) (*multiclusterv1alpha1.PropagationPolicySpec, []string) {
	var warn []string
	at := func(field, format string, args ...any) {
		warn = append(warn, fmt.Sprintf("%s %s: %s: %s", u.GetKind(), key(u), field, fmt.Sprintf(format, args...)))
	}
	spec := &multiclusterv1alpha1.PropagationPolicySpec{}
	selectors, _, _ := unstructured.NestedSlice(u.Object, "spec", "resourceSelectors")
	spec.ResourceSelectors = convertSelectors(selectors, u.GetKind() == "ClusterPropagationPolicy")
	if p, found, _ := unstructured.NestedInt64(u.Object, "spec", "priority"); found {
		spec.Priority = ptr.To(int32(p))
	}
	// Karmada propagates dependencies only when asked; Meridian by
	// default.
	if deps, _, _ := unstructured.NestedBool(u.Object, "spec", "propagateDeps"); deps {
		spec.Dependencies = multiclusterv1alpha1.DependenciesFollow
	} else {
		spec.Dependencies = multiclusterv1alpha1.DependenciesNone
	}
	pl := &spec.Placement
	names, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "placement", "clusterAffinity", "clusterNames")
	for _, n := range names {
		pl.Locations = append(pl.Locations, multiclusterv1alpha1.ClusterName(n))
	}
	if ls, found, _ := unstructured.NestedMap(u.Object, "spec", "placement", "clusterAffinity", "labelSelector"); found {
		sel := &metav1.LabelSelector{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(ls, sel); err == nil {
			pl.ClusterSelector = sel
		} else {
			at("spec.placement.clusterAffinity.labelSelector", "not a label selector: %v", err)
		}
	}
	if tol, found, _ := unstructured.NestedSlice(u.Object, "spec", "placement", "clusterTolerations"); found {
		for _, t := range tol {
			var ct corev1.Toleration
			if m, ok := t.(map[string]any); ok && runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ct) == nil {
				pl.ClusterTolerations = append(pl.ClusterTolerations, ct)
			}
		}
	}
	stype, _, _ := unstructured.NestedString(u.Object, "spec", "placement", "replicaScheduling", "replicaSchedulingType")
	pref, _, _ := unstructured.NestedString(u.Object, "spec", "placement", "replicaScheduling", "replicaDivisionPreference")
	_, scheduling, _ := unstructured.NestedMap(u.Object, "spec", "placement", "replicaScheduling")
	switch {
	case (!scheduling || stype == "Duplicated") && !divides(spec.ResourceSelectors):
		// Copies of kinds without replicas: what Meridian does too.
	case !scheduling || stype == "Duplicated":
		at("spec.placement.replicaScheduling", "Duplicated (Karmada's meaning when replicaScheduling is unset): every cluster runs all replicas; "+
			"Meridian divides a Deployment's replicas over the clusters, so the total is spec.replicas; scale the template if each cluster needs them all")
	case pref == "Aggregated":
		// As few clusters as hold the replicas: Meridian's default.
	default:
		// Divided and Weighted (Karmada's default preference): spread over
		// every candidate cluster, equally when no weights are given.
		if len(names) > 0 {
			pl.NumberOfLocations = ptr.To(int32(len(names)))
		} else {
			at("spec.placement.replicaScheduling", "Weighted over every cluster: Meridian spreads over numberOfLocations clusters; set it to the number of clusters to spread over")
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "placement", "replicaScheduling", "weightPreference"); found {
			at("spec.placement.replicaScheduling.weightPreference", "Meridian has no weights: it spreads evenly over numberOfLocations clusters, each within its node-by-node room")
		}
	}
	switch {
	case len(pl.Locations) > 0:
		pl.Policy = multiclusterv1alpha1.ClusterAffinity
	default:
		pl.Policy = multiclusterv1alpha1.WorstFit
	}
	if spread, found, _ := unstructured.NestedSlice(u.Object, "spec", "placement", "spreadConstraints"); found {
		for i, s := range spread {
			m, _ := s.(map[string]any)
			by, _ := m["spreadByField"].(string)
			if maxGroups, ok := m["maxGroups"].(int64); ok && (by == "" || by == "cluster") && pl.NumberOfLocations == nil {
				pl.NumberOfLocations = ptr.To(int32(maxGroups))
				continue
			}
			at(fmt.Sprintf("spec.placement.spreadConstraints[%d]", i), "only a spread over clusters (maxGroups) maps to numberOfLocations; regions, zones and labels are not spread over")
		}
	}
	for _, f := range []struct {
		path []string
		what string
	}{
		{[]string{"spec", "placement", "clusterAffinity", "exclude"}, "Meridian has no exclusion list: give the clusters a label and use clusterSelector, or taints"},
		{[]string{"spec", "placement", "clusterAffinity", "fieldSelector"}, "select by region or zone with clusterSelector on the Clusters' labels"},
		{[]string{"spec", "placement", "clusterAffinities"}, "ordered fallback groups: Meridian's substitution and bursting (nearest first) fill the same need"},
		{[]string{"spec", "failover"}, "Meridian fails a member's replicas over after the controller's --failover-grace, for every workload"},
		{[]string{"spec", "conflictResolution"}, "Meridian never overwrites a member's own object of the same name (its ResourcePlacement reports a Conflict)"},
		{[]string{"spec", "suspension"}, "no equivalent: delete the policy's selector to stop placing"},
		{[]string{"spec", "preemption"}, "no equivalent: the winner of an object is decided on every change"},
		{[]string{"spec", "preserveResourcesOnDeletion"}, "no equivalent: a deleted template's member objects are removed"},
		{[]string{"spec", "schedulerName"}, "Meridian has one placement framework"},
		{[]string{"spec", "activationPreference"}, "no equivalent: a policy change applies at once"},
		{[]string{"spec", "dependentOverrides"}, "no equivalent: overrides are part of the policy"},
		{[]string{"spec", "schedulePriority"}, "no equivalent"},
		{[]string{"spec", "placement", "workloadAffinity"}, "no equivalent"},
	} {
		if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, f.path...); found {
			at(strings.Join(f.path, "."), "not carried over: %s", f.what)
		}
	}
	return spec, warn
}

// divides reports whether a selector names a kind whose replicas Meridian
// divides.
func divides(selectors []multiclusterv1alpha1.ResourceSelector) bool {
	for _, s := range selectors {
		switch s.Kind {
		case "Deployment", "StatefulSet", "ReplicaSet", "Job":
			return true
		}
	}
	return false
}

// convertSelectors converts resource selectors; a PropagationPolicy's
// selectors never name a namespace in Meridian.
func convertSelectors(selectors []any, cluster bool) []multiclusterv1alpha1.ResourceSelector {
	var out []multiclusterv1alpha1.ResourceSelector
	for _, s := range selectors {
		m, _ := s.(map[string]any)
		rs := multiclusterv1alpha1.ResourceSelector{}
		rs.APIVersion, _ = m["apiVersion"].(string)
		rs.Kind, _ = m["kind"].(string)
		rs.Name, _ = m["name"].(string)
		if cluster {
			rs.Namespace, _ = m["namespace"].(string)
		}
		if ls, ok := m["labelSelector"].(map[string]any); ok && rs.Name == "" {
			sel := &metav1.LabelSelector{}
			if runtime.DefaultUnstructuredConverter.FromUnstructured(ls, sel) == nil {
				rs.LabelSelector = sel
			}
		}
		out = append(out, rs)
	}
	return out
}

// sameSelectors reports whether a Karmada override policy's selectors are
// the converted policy's.
func sameSelectors(selectors []any, have []multiclusterv1alpha1.ResourceSelector) bool {
	want := convertSelectors(selectors, true)
	if len(want) != len(have) {
		return false
	}
	for i := range want {
		a, b := want[i], have[i]
		if a.APIVersion != b.APIVersion || a.Kind != b.Kind || a.Name != b.Name {
			return false
		}
	}
	return true
}

// overrideRules converts a Karmada override policy's rules.
func (r *Result) overrideRules(u *unstructured.Unstructured) ([]multiclusterv1alpha1.OverrideRule, []string) {
	var warn []string
	rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "overrideRules")
	if len(rules) == 0 {
		if o, found, _ := unstructured.NestedMap(u.Object, "spec", "overriders"); found {
			legacy := map[string]any{"overriders": o}
			if t, ok, _ := unstructured.NestedMap(u.Object, "spec", "targetCluster"); ok {
				legacy["targetCluster"] = t
			}
			rules = []any{legacy}
		}
	}
	var out []multiclusterv1alpha1.OverrideRule
	for i, raw := range rules {
		m, _ := raw.(map[string]any)
		field := fmt.Sprintf("%s %s: spec.overrideRules[%d]", u.GetKind(), key(u), i)
		rule := multiclusterv1alpha1.OverrideRule{Name: fmt.Sprintf("%s-%d", u.GetName(), i)}
		if len(rule.Name) > 63 {
			rule.Name = rule.Name[:63]
		}
		if t, ok := m["targetCluster"].(map[string]any); ok {
			rule.TargetClusters = &multiclusterv1alpha1.ClusterTarget{}
			if names, ok := t["clusterNames"].([]any); ok {
				for _, n := range names {
					if s, ok := n.(string); ok {
						rule.TargetClusters.Names = append(rule.TargetClusters.Names, multiclusterv1alpha1.ClusterName(s))
					}
				}
			}
			if ls, ok := t["labelSelector"].(map[string]any); ok {
				sel := &metav1.LabelSelector{}
				if runtime.DefaultUnstructuredConverter.FromUnstructured(ls, sel) == nil {
					rule.TargetClusters.LabelSelector = sel
				}
			}
			if _, ok := t["exclude"]; ok {
				warn = append(warn, field+".targetCluster.exclude: not carried over: target the clusters by name or label instead")
			}
			if fs, ok := t["fieldSelector"].(map[string]any); ok {
				regions, byRegion, rest := regionsOf(fs)
				if byRegion && len(regions) == 0 {
					warn = append(warn, field+".targetCluster.fieldSelector: no region passes every expression; the rule matches no cluster and is not carried over")
					continue
				}
				if len(rest) > 0 {
					// A target without those expressions would match more
					// clusters than Karmada's: the rule is left out.
					for _, e := range rest {
						warn = append(warn, fmt.Sprintf("%s.targetCluster.fieldSelector.matchExpressions[%d]: only region In maps to targetClusters.regions; the rule is not carried over: target the clusters by name or label", field, e))
					}
					continue
				}
				rule.TargetClusters.Regions = regions
			}
		}
		o, _ := m["overriders"].(map[string]any)
		warn = append(warn, convertOverriders(field+".overriders", o, &rule)...)
		out = append(out, rule)
	}
	return out, warn
}

// convertOverriders maps Karmada's overriders onto one rule.
func convertOverriders(field string, o map[string]any, rule *multiclusterv1alpha1.OverrideRule) []string {
	var warn []string
	for i, raw := range asSlice(o["imageOverrider"]) {
		m, _ := raw.(map[string]any)
		op, _ := m["operator"].(string)
		value, _ := m["value"].(string)
		if _, ok := m["predicate"]; ok {
			warn = append(warn, fmt.Sprintf("%s.imageOverrider[%d].predicate: not carried over: the image part is changed in every container (or those in containers)", field, i))
		}
		if op == "remove" {
			warn = append(warn, fmt.Sprintf("%s.imageOverrider[%d]: remove is not carried over: give the whole part to use instead", field, i))
			continue
		}
		if rule.Image == nil {
			rule.Image = &multiclusterv1alpha1.ImageOverride{}
		}
		switch m["component"] {
		case "Registry":
			rule.Image.Registry = value
		case "Repository":
			rule.Image.Repository = value
		case "Tag":
			rule.Image.Tag = value
		}
	}
	for _, k := range []string{"labelsOverrider", "annotationsOverrider"} {
		for _, raw := range asSlice(o[k]) {
			m, _ := raw.(map[string]any)
			op, _ := m["operator"].(string)
			values, _ := m["value"].(map[string]any)
			for key, v := range values {
				s, _ := v.(string)
				switch {
				case op == "remove":
					path := "/metadata/labels/"
					if k == "annotationsOverrider" {
						path = "/metadata/annotations/"
					}
					rule.JSONPatch = append(rule.JSONPatch, multiclusterv1alpha1.JSONPatchOperation{Op: "remove", Path: path + escape(key)})
				case k == "labelsOverrider":
					rule.Labels = setKey(rule.Labels, key, s)
				default:
					rule.Annotations = setKey(rule.Annotations, key, s)
				}
			}
		}
	}
	for i, raw := range asSlice(o["plaintext"]) {
		m, _ := raw.(map[string]any)
		op, _ := m["operator"].(string)
		path, _ := m["path"].(string)
		p := multiclusterv1alpha1.JSONPatchOperation{Op: multiclusterv1alpha1.JSONPatchOp(op), Path: path}
		if v, ok := m["value"]; ok && op != "remove" {
			data, err := json.Marshal(v)
			if err != nil {
				warn = append(warn, fmt.Sprintf("%s.plaintext[%d].value: %v", field, i, err))
				continue
			}
			p.Value = &runtime.RawExtension{Raw: data}
		}
		rule.JSONPatch = append(rule.JSONPatch, p)
	}
	for _, k := range []string{"commandOverrider", "argsOverrider", "fieldOverrider"} {
		if len(asSlice(o[k])) > 0 {
			warn = append(warn, fmt.Sprintf("%s.%s: not carried over: Meridian replaces a container's args (args) or patches any field (jsonPatch); write the result you want", field, k))
		}
	}
	return warn
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// escape escapes a key for a JSON pointer (RFC 6901).
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// regionsOf reads a Karmada cluster field selector: the regions every
// "region In" expression allows (Karmada ANDs them), whether there was
// one, and the indexes of the expressions that say anything else
// (provider, zone, NotIn).
func regionsOf(fs map[string]any) (regions []string, byRegion bool, rest []int) {
	first := true
	for i, raw := range asSlice(fs["matchExpressions"]) {
		e, _ := raw.(map[string]any)
		k, _ := e["key"].(string)
		op, _ := e["operator"].(string)
		if k != "region" || op != "In" {
			rest = append(rest, i)
			continue
		}
		var values []string
		for _, v := range asSlice(e["values"]) {
			if s, ok := v.(string); ok && !slices.Contains(values, s) {
				values = append(values, s)
			}
		}
		byRegion = true
		if first {
			regions, first = values, false
			continue
		}
		regions = slices.DeleteFunc(regions, func(r string) bool { return !slices.Contains(values, r) })
	}
	return regions, byRegion, rest
}
