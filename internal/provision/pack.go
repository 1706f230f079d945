package provision

import (
	"cmp"
	"slices"

	"github.com/meridian-dev/meridian/internal/placement"
)

// sized is r as a flavor measures it: CPU, memory and pods, which is all a
// flavor declares. A pod's extended resources (ephemeral-storage,
// hugepages, GPUs) are not counted against a flavor's room: a flavor does
// not say how much of them a node has, and counting them would find no
// node of any flavor for such a pod.
func sized(r placement.Resources) placement.Resources {
	r.Scalar = nil
	return r
}

// decreasing returns the pods sorted largest first, by CPU then memory.
func decreasing(pods []placement.Resources) []placement.Resources {
	sorted := slices.Clone(pods)
	slices.SortStableFunc(sorted, func(a, b placement.Resources) int {
		if c := cmp.Compare(b.MilliCPU, a.MilliCPU); c != 0 {
			return c
		}
		return cmp.Compare(b.Memory, a.Memory)
	})
	return sorted
}

// firstFit puts p in the first bin with room and reports whether it did.
func firstFit(p placement.Resources, free []placement.Resources) bool {
	for i := range free {
		if sized(p).Fits(free[i]) {
			free[i] = free[i].Sub(p)
			return true
		}
	}
	return false
}

// packInto reports whether every pod fits, first-fit decreasing, into the
// free space of bins.
func packInto(pods, bins []placement.Resources) bool {
	free := slices.Clone(bins)
	for _, p := range decreasing(pods) {
		if !firstFit(p, free) {
			return false
		}
	}
	return true
}
