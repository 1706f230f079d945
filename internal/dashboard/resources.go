package dashboard

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource is one kind of object the dashboard shows.
type Resource struct {
	// Name is how the page asks for it (?resource=Name).
	Name string `json:"name"`
	// GVR is the API resource listed and watched.
	GVR schema.GroupVersionResource `json:"-"`
	// Group and Version repeat GVR for the page.
	Group   string `json:"group"`
	Version string `json:"version"`
	// LabelSelector, when set, narrows the list (virtual nodes are the
	// nodes that carry the sharing label).
	LabelSelector string `json:"labelSelector,omitempty"`
}

// Resources are everything the dashboard reads, in the order of its pages.
// A resource whose API is not served (sharing's CRDs in a management
// cluster that has none, say) is reported as such by /api/resources, and
// its page says so.
var Resources = []Resource{
	res("clusters", "multicluster.meridian.dev", "v1alpha1", "clusters", ""),
	res("multiclusterdeployments", "multicluster.meridian.dev", "v1alpha1", "multiclusterdeployments", ""),
	res("multiclusterjobs", "multicluster.meridian.dev", "v1alpha1", "multiclusterjobs", ""),
	res("cloudprovisioners", "multicluster.meridian.dev", "v1alpha1", "cloudprovisioners", ""),
	res("multiclusterhorizontalpodautoscalers", "multicluster.meridian.dev", "v1alpha1", "multiclusterhorizontalpodautoscalers", ""),
	res("cloudvms", "compute.meridian.dev", "v1alpha1", "cloudvms", ""),
	res("peers", "sharing.meridian.dev", "v1alpha1", "peers", ""),
	res("advertisements", "sharing.meridian.dev", "v1alpha1", "advertisements", ""),
	res("reservations", "sharing.meridian.dev", "v1alpha1", "reservations", ""),
	res("offers", "sharing.meridian.dev", "v1alpha1", "offers", ""),
	res("virtualnodes", "", "v1", "nodes", "sharing.meridian.dev/virtual-node=true"),
	res("events", "events.k8s.io", "v1", "events", ""),
}

func res(name, group, version, resource, selector string) Resource {
	return Resource{
		Name: name, Group: group, Version: version, LabelSelector: selector,
		GVR: schema.GroupVersionResource{Group: group, Version: version, Resource: resource},
	}
}

// lookup returns the resource of that name.
func lookup(name string) (Resource, bool) {
	for _, r := range Resources {
		if r.Name == name {
			return r, true
		}
	}
	return Resource{}, false
}
