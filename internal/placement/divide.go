package placement

import (
	"cmp"
	"slices"
)

// divide gives the workload's replicas to the candidates, which are in the
// policy's order, and returns how many fit nowhere. See "Divide" in the
// package documentation for the rules.
func divide(w *Workload, cands []candidate, cy *cycle) int64 {
	if w.NumberOfLocations > 0 {
		return spread(w, cands, cy)
	}
	need := keep(w, cands)
	if need == 0 {
		return 0
	}
	overflow := w.Substitution || w.Bursting
	if !overflow {
		// One cluster: one the workload runs in, or else the first one
		// in order with room for all, or else the first with room.
		if !used(cands) {
			k := holdsAll(cands, need, false, false)
			if k < 0 {
				k = holdsAll(cands, 1, false, false)
			}
			if k < 0 {
				return need
			}
			cands[k].primary = true
		}
		if k := holdsAll(cands, need, true, false); k >= 0 {
			cands[k].assign += need
			return 0
		}
		return fill(cands, need, isPrimary)
	}
	// Overflow allowed: one member cluster with room for all, one the
	// workload runs in if possible; else fill member clusters, those it
	// runs in first, then cloud clusters.
	k := holdsAll(cands, need, true, true)
	if k < 0 && !used(cands) {
		k = holdsAll(cands, need, false, true)
	}
	if k >= 0 {
		cands[k].assign += need
		cands[k].primary = true
		return 0
	}
	if !used(cands) {
		if k := holdsAll(cands, 1, false, true); k >= 0 {
			cands[k].primary = true
		}
	}
	need = fill(cands, need, func(c *candidate) bool { return !c.cloud && c.primary })
	need = fill(cands, need, func(c *candidate) bool { return !c.cloud })
	need = fill(cands, need, isPrimary)
	return fill(cands, need, func(*candidate) bool { return true })
}

// holdsAll returns the first candidate with room for need more replicas,
// among the primary ones only when primaryOnly is set and the member
// clusters only when membersOnly is set; -1 when none has.
func holdsAll(cands []candidate, need int64, primaryOnly, membersOnly bool) int {
	for k := range cands {
		c := &cands[k]
		if (primaryOnly && !c.primary) || (membersOnly && c.cloud) {
			continue
		}
		if c.cap-c.assign >= need {
			return k
		}
	}
	return -1
}

func isPrimary(c *candidate) bool { return c.primary }

// keep assigns every candidate the replicas the workload has there now,
// trims a scale-down from the end of the order (cloud clusters and low
// scores give theirs up first), marks the clusters kept as primary and
// returns how many replicas are still to place.
func keep(w *Workload, cands []candidate) int64 {
	need := int64(w.Replicas)
	for k := range cands {
		cands[k].assign = cands[k].current
		need -= cands[k].current
	}
	for k := len(cands) - 1; k >= 0 && need < 0; k-- {
		give := min(cands[k].assign, -need)
		cands[k].assign -= give
		need += give
	}
	for k := range cands {
		cands[k].primary = cands[k].assign > 0
	}
	return need
}

// used reports whether some candidate has replicas already.
func used(cands []candidate) bool {
	for k := range cands {
		if cands[k].assign > 0 {
			return true
		}
	}
	return false
}

// fill gives the candidates that match, in order, as many of the need
// replicas as they can hold, and returns what is left.
func fill(cands []candidate, need int64, match func(*candidate) bool) int64 {
	for k := range cands {
		if need == 0 {
			break
		}
		c := &cands[k]
		if !match(c) {
			continue
		}
		if take := min(c.cap-c.assign, need); take > 0 {
			c.assign += take
			need -= take
		}
	}
	return need
}

// spread divides the replicas over NumberOfLocations clusters in proportion
// to what each can hold. The clusters are those where the workload runs now,
// then the next ones in order; the shares are largest-remainder rounded, so
// they add up exactly and no cluster gets more than it holds.
func spread(w *Workload, cands []candidate, cy *cycle) int64 {
	k := int(w.NumberOfLocations)
	sel := cy.sel[:0]
	for i := range cands {
		cands[i].assign, cands[i].primary = 0, false
		if len(sel) < k && cands[i].current > 0 && cands[i].cap > 0 {
			sel = append(sel, i)
			cands[i].primary = true
		}
	}
	for i := range cands {
		if len(sel) < k && !cands[i].primary && cands[i].cap > 0 {
			sel = append(sel, i)
			cands[i].primary = true
		}
	}
	cy.sel = sel
	need := int64(w.Replicas)
	var capSel int64
	for _, i := range sel {
		capSel += cands[i].cap
	}
	if need >= capSel {
		for _, i := range sel {
			cands[i].assign = cands[i].cap
		}
		need -= capSel
		if need > 0 && (w.Substitution || w.Bursting) {
			need = fill(cands, need, func(c *candidate) bool { return !c.cloud })
			need = fill(cands, need, func(*candidate) bool { return true })
		}
		return need
	}
	// need < capSel, so each share, rounded up, is still at most cap.
	left := need
	for _, i := range sel {
		c := &cands[i]
		c.assign = need * c.cap / capSel
		c.rem = need * c.cap % capSel
		left -= c.assign
	}
	// sel is in policy order, so the stable sort breaks ties by that order.
	slices.SortStableFunc(sel, func(a, b int) int { return cmp.Compare(cands[b].rem, cands[a].rem) })
	for _, i := range sel[:left] {
		cands[i].assign++
	}
	return 0
}

// assignments lists the candidates that got replicas, in policy order, with
// the role each plays.
func assignments(w *Workload, s *Snapshot, cands []candidate) []Assignment {
	n := 0
	for k := range cands {
		if cands[k].assign > 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Assignment, 0, n)
	for k := range cands {
		c := &cands[k]
		if c.assign > 0 {
			name := s.Clusters[c.idx].Name
			out = append(out, Assignment{Cluster: name, Replicas: int32(c.assign), Role: role(w, name, c)})
		}
	}
	return out
}

// role says why a cluster got replicas: a preferred location is Preferred;
// another cluster is a Substitute when substitution is on, and Burst
// otherwise; without locations, the clusters chosen first are Selected and
// the overflow is Burst. A cloud cluster is always Burst unless preferred.
func role(w *Workload, name string, c *candidate) Role {
	switch {
	case slices.Contains(w.Locations, name):
		return RolePreferred
	case c.cloud:
		return RoleBurst
	case len(w.Locations) > 0 && w.Substitution:
		return RoleSubstitute
	case len(w.Locations) == 0 && c.primary:
		return RoleSelected
	default:
		return RoleBurst
	}
}
