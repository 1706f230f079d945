package testenv

import (
	"slices"
	"testing"
)

// Objects lists every object c holds, of every kind it serves, as
// "resource.group namespace/name", sorted; objects whose deletion began
// (a namespace no controller finalizes here), events, and what the API
// server keeps of its own (see serverOwned) are left out. Tests compare two
// lists to show what a command made or left behind.
func (c *Cluster) Objects(t testing.TB) []string {
	t.Helper()
	objs, err := c.objects(t.Context())
	if err != nil {
		t.Fatalf("failed to list the objects of %s: %v", c.Name, err)
	}
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		if o.deleting || serverOwned(o) || o.resource.Resource == "events" {
			continue
		}
		res := o.resource.Resource
		if o.resource.Group != "" {
			res += "." + o.resource.Group
		}
		name := o.name
		if o.namespace != "" {
			name = o.namespace + "/" + o.name
		}
		out = append(out, res+" "+name)
	}
	slices.Sort(out)
	return out
}
