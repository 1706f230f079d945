package provision

import (
	"math/big"
	"slices"

	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/placement"
)

// newNode is a node the provisioner would add: its flavor (an index into
// the flavors) and what is packed into it.
type newNode struct {
	flavor int
	used   placement.Resources
}

// mix is a set of new nodes and what they cost per hour.
type mix struct {
	nodes []newNode
	cost  money.Money
}

// groups counts m's nodes by flavor, in the order of flavors.
func (m mix) groups(flavors []Flavor) []NodeGroup {
	var out []NodeGroup
	for i, f := range flavors {
		n := 0
		for _, nn := range m.nodes {
			if nn.flavor == i {
				n++
			}
		}
		if n > 0 {
			out = append(out, NodeGroup{Flavor: f.Name, Nodes: n})
		}
	}
	return out
}

// cheapestMix packs pods, largest first, into new nodes and returns the
// cheapest set of flavors it found for them, as Karpenter chooses instance
// types: every node is of a flavor that holds the largest pod it was opened
// for, so that a pod is never given a flavor too small for it, and each node
// is then shrunk to the cheapest flavor that still holds what it got. Pods
// larger than every flavor are returned apart.
//
// The mixes tried are one per flavor (every node of that flavor, or of the
// cheapest one that holds a pod it cannot) and a greedy one that opens each
// node with the flavor of the lowest price for what it would hold; the
// cheapest wins, and among equals the one with fewer nodes. Prices are
// compared exactly (internal/money); Config.Validate has checked that
// every priced flavor is in one currency.
func cheapestMix(pods []placement.Resources, flavors []Flavor) (mix, []placement.Resources) {
	var fit, unfit []placement.Resources
	for _, p := range decreasing(pods) {
		if cheapestFor(p, flavors) < 0 {
			unfit = append(unfit, p)
			continue
		}
		fit = append(fit, p)
	}
	if len(fit) == 0 {
		return mix{}, unfit
	}
	candidates := []mix{greedyMix(fit, flavors)}
	for i := range flavors {
		candidates = append(candidates, flavorMix(fit, flavors, i))
	}
	best := candidates[0]
	for _, c := range candidates[1:] {
		if d := cmpMoney(c.cost, best.cost); d < 0 || (d == 0 && len(c.nodes) < len(best.nodes)) {
			best = c
		}
	}
	return best, unfit
}

// cheapestFor is the index of the cheapest flavor that holds r, or -1.
func cheapestFor(r placement.Resources, flavors []Flavor) int {
	best := -1
	for i, f := range flavors {
		if sized(r).Fits(f.Allocatable) && (best < 0 || cheaper(f, flavors[best])) {
			best = i
		}
	}
	return best
}

// flavorMix packs pods first-fit decreasing into nodes of flavor i, opening
// a node of the cheapest flavor that holds a pod too large for i.
func flavorMix(pods []placement.Resources, flavors []Flavor, i int) mix {
	var m mix
	for _, p := range pods {
		if placeInto(&m, p, flavors) {
			continue
		}
		f := i
		if !sized(p).Fits(flavors[i].Allocatable) {
			f = cheapestFor(p, flavors)
		}
		m.nodes = append(m.nodes, newNode{flavor: f, used: p})
	}
	return rightSize(m, flavors)
}

// greedyMix opens, for the largest pod not packed yet, the node of the
// flavor with the lowest price per share of what it would hold.
func greedyMix(pods []placement.Resources, flavors []Flavor) mix {
	var m mix
	ref := largest(flavors)
	rest := slices.Clone(pods)
	for len(rest) > 0 {
		bestFlavor := -1
		var bestScore money.Money
		var bestLeft []placement.Resources
		var bestUsed placement.Resources
		for i, f := range flavors {
			if !sized(rest[0]).Fits(f.Allocatable) {
				continue
			}
			used, left := fill(rest, f.Allocatable)
			score := f.PricePerHour.QuoRat(share(used, ref))
			if d := cmpMoney(score, bestScore); bestFlavor < 0 || d < 0 || (d == 0 && cheaper(f, flavors[bestFlavor])) {
				bestFlavor, bestScore, bestLeft, bestUsed = i, score, left, used
			}
		}
		m.nodes = append(m.nodes, newNode{flavor: bestFlavor, used: bestUsed})
		rest = bestLeft
	}
	return rightSize(m, flavors)
}

// share is the larger of the fractions of ref's CPU and memory that used
// takes, exactly; never zero, as fill packs at least the pod a node is
// opened for and a pod asks for CPU or memory (sized).
func share(used, ref placement.Resources) *big.Rat {
	cpu, mem := new(big.Rat), new(big.Rat)
	if ref.MilliCPU > 0 {
		cpu.SetFrac64(used.MilliCPU, ref.MilliCPU)
	}
	if ref.Memory > 0 {
		mem.SetFrac64(used.Memory, ref.Memory)
	}
	if cpu.Cmp(mem) < 0 {
		cpu = mem
	}
	if cpu.Sign() == 0 {
		return big.NewRat(1, 1)
	}
	return cpu
}

// fill packs pods, in order, into one node of size and returns what it
// holds and the pods left over.
func fill(pods []placement.Resources, size placement.Resources) (placement.Resources, []placement.Resources) {
	var used placement.Resources
	var left []placement.Resources
	for _, p := range pods {
		if sized(p).Fits(size.Sub(used)) {
			used = used.Add(p)
			continue
		}
		left = append(left, p)
	}
	return used, left
}

// placeInto puts p first-fit into a node of m and reports whether it did.
func placeInto(m *mix, p placement.Resources, flavors []Flavor) bool {
	for j := range m.nodes {
		n := &m.nodes[j]
		if sized(p).Fits(flavors[n.flavor].Allocatable.Sub(n.used)) {
			n.used = n.used.Add(p)
			return true
		}
	}
	return false
}

// rightSize gives every node of m the cheapest flavor that holds what it
// got, and prices m.
func rightSize(m mix, flavors []Flavor) mix {
	m.cost = money.Money{}
	for j := range m.nodes {
		n := &m.nodes[j]
		if f := cheapestFor(n.used, flavors); f >= 0 && cheaper(flavors[f], flavors[n.flavor]) {
			n.flavor = f
		}
		// One currency (Config.Validate), so Add cannot fail.
		m.cost, _ = m.cost.Add(flavors[n.flavor].PricePerHour)
	}
	return m
}

// cmpMoney compares two amounts of the one currency of a Config's flavors.
func cmpMoney(a, b money.Money) int {
	c, _ := a.Cmp(b)
	return c
}

// cheaper orders flavors by price, then, among flavors of one price, by
// size, so that the smaller one is taken.
func cheaper(a, b Flavor) bool {
	if c := cmpMoney(a.PricePerHour, b.PricePerHour); c != 0 {
		return c < 0
	}
	if a.Allocatable.MilliCPU != b.Allocatable.MilliCPU {
		return a.Allocatable.MilliCPU < b.Allocatable.MilliCPU
	}
	return a.Allocatable.Memory < b.Allocatable.Memory
}

// largest is the largest allocatable of the flavors in every dimension.
func largest(flavors []Flavor) placement.Resources {
	var r placement.Resources
	for _, f := range flavors {
		r.MilliCPU = max(r.MilliCPU, f.Allocatable.MilliCPU)
		r.Memory = max(r.Memory, f.Allocatable.Memory)
		r.Pods = max(r.Pods, f.Allocatable.Pods)
	}
	return r
}
