package provision

import (
	"cmp"
	"slices"

	"github.com/meridian-dev/meridian/internal/placement"
)

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
		if p.Fits(free[i]) {
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
