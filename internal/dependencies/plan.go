package dependencies

import (
	"slices"
)

// User is one workload of a namespace: its key (as workload.Key), the
// clusters that run its replicas, and what its pod template names.
type User struct {
	Key      string
	Clusters []string
	Refs     []Ref
}

// Need is one dependency a member must hold, and the workloads there that
// name it, sorted.
type Need struct {
	Ref
	Users []string
}

// Plan returns, for every cluster that runs one of users, the dependencies
// it must hold, sorted by kind and name. A dependency is optional in a
// cluster only if every user there names it optional.
func Plan(users []User) map[string][]Need {
	byCluster := map[string]map[Ref]*Need{} // Ref without Optional
	for _, u := range users {
		for _, c := range u.Clusters {
			if byCluster[c] == nil {
				byCluster[c] = map[Ref]*Need{}
			}
			for _, r := range u.Refs {
				key := Ref{Kind: r.Kind, Name: r.Name}
				n := byCluster[c][key]
				if n == nil {
					n = &Need{Ref: r}
					byCluster[c][key] = n
				}
				n.Optional = n.Optional && r.Optional
				if !slices.Contains(n.Users, u.Key) {
					n.Users = append(n.Users, u.Key)
				}
			}
		}
	}
	out := make(map[string][]Need, len(byCluster))
	for c, needs := range byCluster {
		if len(needs) == 0 {
			continue
		}
		list := make([]Need, 0, len(needs))
		for _, n := range needs {
			slices.Sort(n.Users)
			list = append(list, *n)
		}
		slices.SortFunc(list, func(a, b Need) int { return compare(a.Ref, b.Ref) })
		out[c] = list
	}
	return out
}
