package reschedule

import (
	"cmp"
	"slices"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Cluster is what the re-scheduler knows of one cluster.
type Cluster struct {
	Name  string
	Cloud bool
	// Free is the free resources of each schedulable node.
	Free []placement.Resources
}

// Workload is one workload with replicas to consider.
type Workload struct {
	Key string
	// Requests is the request of one replica.
	Requests placement.Resources
	// Preferred are the preferred clusters, most preferred first.
	Preferred []string
	// Running is the Running replicas per cluster.
	Running map[string]int32
}

// Move is one pull-back: add Replicas in To, then remove as many from From.
type Move struct {
	Workload string
	From     string
	To       string
	Replicas int32
}

// Plan returns the moves that bring replicas back to their preferred
// clusters, workloads in the order given.
func Plan(clusters []Cluster, workloads []Workload, latency placement.Latency) []Move {
	free := map[string][]placement.Resources{}
	cloud := map[string]bool{}
	for _, c := range clusters {
		free[c.Name] = slices.Clone(c.Free)
		cloud[c.Name] = c.Cloud
	}
	var moves []Move
	for _, w := range workloads {
		if len(w.Preferred) == 0 {
			continue
		}
		for _, from := range RemovalOrder(w.Running, w.Preferred, cloud, latency) {
			if slices.Contains(w.Preferred, from) {
				break
			}
			for range w.Running[from] {
				to := reserve(free, w.Preferred, w.Requests)
				if to == "" {
					break
				}
				moves = addMove(moves, Move{Workload: w.Key, From: from, To: to, Replicas: 1})
			}
		}
	}
	return moves
}

// reserve takes room for one replica on the first node that fits it in the
// first preferred cluster that has one, and returns that cluster.
func reserve(free map[string][]placement.Resources, preferred []string, r placement.Resources) string {
	for _, name := range preferred {
		nodes := free[name]
		for i, f := range nodes {
			if r.Fits(f) {
				nodes[i] = f.Sub(r)
				return name
			}
		}
	}
	return ""
}

func addMove(moves []Move, m Move) []Move {
	if n := len(moves); n > 0 {
		last := &moves[n-1]
		if last.Workload == m.Workload && last.From == m.From && last.To == m.To {
			last.Replicas += m.Replicas
			return moves
		}
	}
	return append(moves, m)
}

// RemovalOrder returns the clusters of current that hold replicas, in the
// order replicas should leave them: cloud clusters, then clusters that are
// not preferred from the farthest to the nearest by latency from the first
// preferred cluster, then preferred clusters from the least preferred.
func RemovalOrder(current map[string]int32, preferred []string, cloud map[string]bool, latency placement.Latency) []string {
	var names []string
	for name, n := range current {
		if n > 0 {
			names = append(names, name)
		}
	}
	rank := func(name string) (group int, key time.Duration) {
		if i := slices.Index(preferred, name); i >= 0 {
			return 2, time.Duration(i)
		}
		if cloud[name] {
			group = 0
		} else {
			group = 1
		}
		if len(preferred) > 0 {
			if d, ok := latency[preferred[0]][name]; ok {
				return group, d
			}
		}
		return group, 0
	}
	slices.SortFunc(names, func(a, b string) int {
		ga, ka := rank(a)
		gb, kb := rank(b)
		if c := cmp.Compare(ga, gb); c != 0 {
			return c
		}
		if c := cmp.Compare(kb, ka); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return names
}
