package webhook

import (
	"fmt"
	"strings"
	"time"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/policy"
)

const (
	// maxStepNames is how many regions a step of the explanation lists
	// (the API's limit on PolicyStep.Left).
	maxStepNames = 64
	// maxGroupNames is how many regions a denial lists for one policy and
	// reason before it counts the rest.
	maxGroupNames = 8
	// maxDenialLength caps a denial's message: kubectl prints it on one
	// line, and the API server's status message is no place for a
	// thousand regions.
	maxDenialLength = 2048
)

// explanation is the API form of how the policies narrowed the regions.
func explanation(dec policy.VMDecision) *computev1alpha1.CloudVMExplanation {
	e := &computev1alpha1.CloudVMExplanation{}
	for _, s := range dec.Steps {
		left := s.Left
		if len(left) > maxStepNames {
			left = left[:maxStepNames]
		}
		e.Steps = append(e.Steps, computev1alpha1.PolicyStep{
			Policy:    s.Policy,
			LeftCount: int32(len(s.Left)),
			Left:      append([]string(nil), left...),
		})
	}
	for _, r := range dec.Removed {
		e.Removed = append(e.Removed, computev1alpha1.RegionRemoval(r))
	}
	return e
}

// constraints names every constraint the VM asked for, for a denial.
func constraints(vm *computev1alpha1.CloudVM) string {
	s := vm.Spec
	var c []string
	if len(s.Providers) > 0 {
		ps := make([]string, len(s.Providers))
		for i, p := range s.Providers {
			ps[i] = string(p)
		}
		c = append(c, "providers "+strings.Join(ps, ", "))
	}
	if s.Residency != "" {
		c = append(c, "residency "+string(s.Residency))
	}
	if s.MaxLatency != nil {
		c = append(c, fmt.Sprintf("at most %g ms from %s", float64(s.MaxLatency.Duration)/float64(time.Millisecond), s.OriginRegion))
	}
	if p := s.Pin; p != nil && (p.Provider != "" || p.Region != "") {
		where := string(p.Provider)
		if p.Region != "" {
			where += "/" + p.Region
		}
		c = append(c, "pinned to "+where)
	}
	c = append(c, fmt.Sprintf("%s CPU and %s memory", s.CPU.String(), s.Memory.String()))
	return strings.Join(c, "; ")
}

func pinNote(vm *computev1alpha1.CloudVM) string {
	if p := vm.Spec.Pin; p != nil && p.Start != nil {
		return fmt.Sprintf(" (start pinned to %s)", p.Start.UTC().Format(timeLayout))
	}
	return ""
}

// noRegionMessage says why no region is left: every constraint, then, per
// policy in the order they ran, the regions it removed grouped by reason.
func noRegionMessage(vm *computev1alpha1.CloudVM, dec policy.VMDecision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CloudVM %s cannot be scheduled: no region is left after the policies (constraints: %s).", key(vm), constraints(vm))
	for _, g := range groupRemovals(dec) {
		fmt.Fprintf(&b, " %s removed %d: %s", g.policy, g.count, g.text)
	}
	if dec.DecisionID != "" {
		fmt.Fprintf(&b, " (policy decision %s, bundle revision %s)", dec.DecisionID, dec.Revision)
	}
	return truncate(b.String(), maxDenialLength)
}

type removalGroup struct {
	policy string
	count  int
	text   string
}

// groupRemovals groups removals by policy, in the order the policies ran,
// and within a policy by reason, in the order the reasons first appear.
func groupRemovals(dec policy.VMDecision) []removalGroup {
	var order []string
	seen := map[string]bool{}
	for _, s := range dec.Steps {
		if !seen[s.Policy] {
			seen[s.Policy] = true
			order = append(order, s.Policy)
		}
	}
	byPolicy := map[string][]policy.VMRemoval{}
	for _, r := range dec.Removed {
		if !seen[r.Policy] {
			seen[r.Policy] = true
			order = append(order, r.Policy)
		}
		byPolicy[r.Policy] = append(byPolicy[r.Policy], r)
	}
	var groups []removalGroup
	for _, p := range order {
		rs := byPolicy[p]
		if len(rs) == 0 {
			continue
		}
		var reasons []string
		regions := map[string][]string{}
		for _, r := range rs {
			if _, ok := regions[r.Reason]; !ok {
				reasons = append(reasons, r.Reason)
			}
			regions[r.Reason] = append(regions[r.Reason], r.Provider+"/"+r.Region)
		}
		parts := make([]string, len(reasons))
		for i, why := range reasons {
			parts[i] = why + " (" + list(regions[why], maxGroupNames) + ")"
		}
		groups = append(groups, removalGroup{policy: p, count: len(rs), text: strings.Join(parts, "; ") + "."})
	}
	return groups
}

// list joins names, counting those past max.
func list(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = " … (shortened)"
	cut := n - len(more)
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + more
}
