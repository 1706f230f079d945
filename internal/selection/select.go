package selection

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Specificity ranks a selector: one that names its object is more specific
// than one that matches labels, which is more specific than a kind alone.
type Specificity int

// The specificities, least first.
const (
	ByKind Specificity = iota
	ByLabels
	ByName
)

// Selector is one resource selector of a policy, already parsed.
type Selector struct {
	GVK schema.GroupVersionKind
	// Namespace is where it selects; empty selects in every namespace (a
	// ClusterPropagationPolicy's selector without one).
	Namespace string
	Name      string
	// Labels is nil when the selector matches no labels (by name or kind).
	Labels labels.Selector
}

// Specificity of s.
func (s Selector) Specificity() Specificity {
	switch {
	case s.Name != "":
		return ByName
	case s.Labels != nil:
		return ByLabels
	}
	return ByKind
}

// Matches reports whether s selects o.
func (s Selector) Matches(o Object) bool {
	return s.GVK == o.GVK && (s.Namespace == "" || s.Namespace == o.Namespace) &&
		(s.Name == "" || s.Name == o.Name) && (s.Labels == nil || s.Labels.Matches(labels.Set(o.Labels)))
}

// Policy is a propagation policy as selection reads it.
type Policy struct {
	// Ref is the policy's name as a ResourcePlacement names it:
	// kind/name or kind/namespace/name.
	Ref string
	// Namespaced is true for a PropagationPolicy.
	Namespaced bool
	Name       string
	Priority   int32
	Selectors  []Selector
}

// Object is a resource template.
type Object struct {
	GVK             schema.GroupVersionKind
	Namespace, Name string
	Labels          map[string]string
}

// Key names o: group/version/Kind/namespace/name.
func (o Object) Key() string {
	return fmt.Sprintf("%s/%s/%s", o.GVK.GroupVersion(), o.GVK.Kind, o.Namespace+"/"+o.Name)
}

// Claim is an object a policy selects, and the policy that wins it.
type Claim struct {
	Object Object
	Winner *Policy
}

// Select returns, for every object some policy selects, the claim with its
// winner, sorted by object key; and for each policy (by Ref) the claims of
// the objects it selects.
func Select(policies []Policy, objects []Object) (claims []Claim, byPolicy map[string][]Claim) {
	byPolicy = map[string][]Claim{}
	for _, o := range objects {
		var winner *Policy
		var best Specificity
		var selectedBy []*Policy
		for i := range policies {
			p := &policies[i]
			sp, ok := p.match(o)
			if !ok {
				continue
			}
			selectedBy = append(selectedBy, p)
			if winner == nil || wins(p, sp, winner, best) {
				winner, best = p, sp
			}
		}
		if winner == nil {
			continue
		}
		c := Claim{Object: o, Winner: winner}
		claims = append(claims, c)
		for _, p := range selectedBy {
			byPolicy[p.Ref] = append(byPolicy[p.Ref], c)
		}
	}
	slices.SortFunc(claims, func(a, b Claim) int { return cmp.Compare(a.Object.Key(), b.Object.Key()) })
	for _, cs := range byPolicy {
		slices.SortFunc(cs, func(a, b Claim) int { return cmp.Compare(a.Object.Key(), b.Object.Key()) })
	}
	return claims, byPolicy
}

// match reports whether p selects o, with its most specific selector that
// does.
func (p *Policy) match(o Object) (Specificity, bool) {
	found, best := false, ByKind
	for _, s := range p.Selectors {
		if s.Matches(o) {
			if sp := s.Specificity(); !found || sp > best {
				best = sp
			}
			found = true
		}
	}
	return best, found
}

// wins reports whether p (selecting with specificity sp) wins an object
// over q (with sq).
func wins(p *Policy, sp Specificity, q *Policy, sq Specificity) bool {
	if p.Namespaced != q.Namespaced {
		return p.Namespaced
	}
	if p.Priority != q.Priority {
		return p.Priority > q.Priority
	}
	if sp != sq {
		return sp > sq
	}
	return p.Name < q.Name
}
