package selection_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meridian-dev/meridian/internal/selection"
)

var deployment = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

func TestSelect(t *testing.T) {
	web := selection.Object{GVK: deployment, Namespace: "shop", Name: "web", Labels: map[string]string{"tier": "front"}}
	db := selection.Object{GVK: deployment, Namespace: "shop", Name: "db"}
	other := selection.Object{GVK: deployment, Namespace: "other", Name: "web"}
	config := selection.Object{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespace: "shop", Name: "web"}
	objects := []selection.Object{web, db, other, config}
	kind := func(ns string) selection.Selector { return selection.Selector{GVK: deployment, Namespace: ns} }
	named := func(ns, name string) selection.Selector {
		return selection.Selector{GVK: deployment, Namespace: ns, Name: name}
	}
	front := selection.Selector{GVK: deployment, Namespace: "shop", Labels: labels.SelectorFromSet(labels.Set{"tier": "front"})}
	pp := func(name string, prio int32, s ...selection.Selector) selection.Policy {
		return selection.Policy{Ref: "PropagationPolicy/shop/" + name, Namespaced: true, Name: name, Priority: prio, Selectors: s}
	}
	cpp := func(name string, prio int32, s ...selection.Selector) selection.Policy {
		return selection.Policy{Ref: "ClusterPropagationPolicy/" + name, Name: name, Priority: prio, Selectors: s}
	}
	tests := []struct {
		name     string
		policies []selection.Policy
		want     map[string]string // object name/namespace -> winner ref
	}{
		{name: "no policy, nothing placed", want: map[string]string{}},
		{
			name:     "a namespaced policy selects in its namespace, a cluster one in all",
			policies: []selection.Policy{pp("all", 0, kind("shop")), cpp("everywhere", 0, kind(""))},
			want:     map[string]string{"shop/web": "PropagationPolicy/shop/all", "shop/db": "PropagationPolicy/shop/all", "other/web": "ClusterPropagationPolicy/everywhere"},
		},
		{
			name:     "a namespaced policy wins over a cluster one of higher priority",
			policies: []selection.Policy{cpp("high", 100, named("shop", "web")), pp("low", 0, kind("shop"))},
			want:     map[string]string{"shop/web": "PropagationPolicy/shop/low", "shop/db": "PropagationPolicy/shop/low"},
		},
		{
			name:     "higher priority wins over a more specific selector",
			policies: []selection.Policy{pp("named", 0, named("shop", "web")), pp("kind", 5, kind("shop"))},
			want:     map[string]string{"shop/web": "PropagationPolicy/shop/kind", "shop/db": "PropagationPolicy/shop/kind"},
		},
		{
			name:     "at equal priority, name over labels over kind",
			policies: []selection.Policy{pp("a-kind", 0, kind("shop")), pp("b-labels", 0, front), pp("c-name", 0, named("shop", "db"))},
			want:     map[string]string{"shop/web": "PropagationPolicy/shop/b-labels", "shop/db": "PropagationPolicy/shop/c-name"},
		},
		{
			name:     "then the first name",
			policies: []selection.Policy{pp("zeta", 0, kind("shop")), pp("alpha", 0, kind("shop"))},
			want:     map[string]string{"shop/web": "PropagationPolicy/shop/alpha", "shop/db": "PropagationPolicy/shop/alpha"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			claims, _ := selection.Select(tc.policies, objects)
			got := map[string]string{}
			for _, c := range claims {
				got[c.Object.Namespace+"/"+c.Object.Name] = c.Winner.Ref
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("winners (-want +got):\n%s", diff)
			}
		})
	}
}

// A policy's claims include the objects another policy won, so that its
// status can say who claims them.
func TestSelectListsWhatAPolicyLost(t *testing.T) {
	web := selection.Object{GVK: deployment, Namespace: "shop", Name: "web"}
	low := selection.Policy{Ref: "PropagationPolicy/shop/low", Namespaced: true, Name: "low", Selectors: []selection.Selector{{GVK: deployment, Namespace: "shop"}}}
	high := selection.Policy{Ref: "PropagationPolicy/shop/high", Namespaced: true, Name: "high", Priority: 1, Selectors: []selection.Selector{{GVK: deployment, Namespace: "shop"}}}
	_, byPolicy := selection.Select([]selection.Policy{low, high}, []selection.Object{web})
	got := map[string][]string{}
	for ref, cs := range byPolicy {
		for _, c := range cs {
			got[ref] = append(got[ref], c.Object.Name+" won by "+c.Winner.Name)
		}
	}
	want := map[string][]string{"PropagationPolicy/shop/low": {"web won by high"}, "PropagationPolicy/shop/high": {"web won by high"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims by policy (-want +got):\n%s", diff)
	}
}
