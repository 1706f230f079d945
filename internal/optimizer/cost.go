package optimizer

import (
	"cmp"
	"slices"

	"github.com/meridian-dev/meridian/internal/money"
)

// Share is the replicas placed in one cluster.
type Share struct {
	Cluster     string      `json:"cluster"`
	Replicas    int         `json:"replicas"`
	CostPerHour money.Money `json:"cost_per_hour"`
}

// clusterCapacity is the sum of the clusters' caps, and false when some
// cluster has none (or no cluster is listed).
func clusterCapacity(clusters []ClusterPrice) (int, bool) {
	if len(clusters) == 0 {
		return 0, false
	}
	total := 0
	for _, c := range clusters {
		if c.MaxReplicas == 0 {
			return 0, false
		}
		total += c.MaxReplicas
	}
	return total, true
}

// Place puts n replicas on the cheapest clusters first, each up to its cap,
// ties broken by name. It returns the shares with at least one replica, their
// cost per hour and how many replicas found no room. The prices are
// counted exactly; Config.Validate has checked that they are in one
// currency, the cost's.
func Place(clusters []ClusterPrice, n int) (shares []Share, costPerHour money.Money, unplaced int) {
	order := slices.Clone(clusters)
	slices.SortStableFunc(order, func(a, b ClusterPrice) int {
		if c, _ := a.PricePerHour.Cmp(b.PricePerHour); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	if len(clusters) > 0 {
		costPerHour = money.Zero(clusters[0].PricePerHour.Currency())
	}
	left := n
	for _, c := range order {
		if left == 0 {
			break
		}
		k := left
		if c.MaxReplicas > 0 {
			k = min(k, c.MaxReplicas)
		}
		if k == 0 {
			continue
		}
		cost := c.PricePerHour.Mul(int64(k))
		shares = append(shares, Share{Cluster: c.Name, Replicas: k, CostPerHour: cost})
		costPerHour, _ = costPerHour.Add(cost)
		left -= k
	}
	return shares, costPerHour, left
}
