package fit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/meridian-dev/meridian/internal/placement"
)

// Name is the name of the plugin in profiles and in statuses.
const Name = "fit"

// Fit rejects clusters where no node has room for one replica.
type Fit struct{}

var _ placement.FilterPlugin = &Fit{}

// New returns the plugin.
func New() (placement.Plugin, error) { return &Fit{}, nil }

// Name returns Name.
func (*Fit) Name() string { return Name }

// Filter rejects, as Unschedulable (pods may end and free room), a cluster
// where one replica fits on no node and the workload has no replicas yet.
// A copy (placement.KindCopy) has no replicas and passes.
func (*Fit) Filter(_ context.Context, w *placement.Workload, c *placement.ClusterInfo) *placement.Status {
	if w.Kind == placement.KindCopy || w.Current[c.Name] > 0 || c.FitsOne(w.PodRequests, w.Tolerations) {
		return nil
	}
	return &placement.Status{Code: placement.Unschedulable, Plugin: Name, Reason: Reason(c, w.PodRequests, w.Tolerations)}
}

var cordonTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// Reason explains, for people, why no node of c holds one pod of req with
// the tolerations, for example "cluster has 3 nodes but none has 2 CPU free
// (largest free: 1.5 CPU)".
func Reason(c *placement.ClusterInfo, req placement.Resources, tolerations []corev1.Toleration) string {
	if len(c.Nodes) == 0 {
		return "cluster has no nodes"
	}
	_, cordonBlocks := placement.UntoleratedTaint([]corev1.Taint{cordonTaint}, tolerations)
	var cordoned, tainted, usable int
	var taint corev1.Taint
	var largest placement.Resources
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Unschedulable && cordonBlocks {
			cordoned++
			continue
		}
		if t, bad := placement.UntoleratedTaint(n.Taints, tolerations); bad {
			if tainted == 0 {
				taint = t
			}
			tainted++
			continue
		}
		usable++
		if i >= len(c.Free) {
			continue
		}
		f := &c.Free[i]
		largest.MilliCPU = max(largest.MilliCPU, f.MilliCPU)
		largest.Memory = max(largest.Memory, f.Memory)
		largest.Pods = max(largest.Pods, f.Pods)
		for name := range req.Scalar {
			if largest.Scalar == nil {
				largest.Scalar = make(map[corev1.ResourceName]int64)
			}
			largest.Scalar[name] = max(largest.Scalar[name], f.Scalar[name])
		}
	}
	unusable := unusableNodes(cordoned, tainted, taint)
	if usable == 0 {
		return fmt.Sprintf("cluster has %s but none is usable: %s", nodes(len(c.Nodes)), unusable)
	}
	tail := "none has a free pod slot"
	if largest.Pods > 0 {
		tail = shortfall(req, largest)
	}
	if unusable != "" {
		return fmt.Sprintf("cluster has %s, %d usable (%s), but %s", nodes(len(c.Nodes)), usable, unusable, tail)
	}
	return fmt.Sprintf("cluster has %s but %s", nodes(len(c.Nodes)), tail)
}

// shortfall says which requested amounts no usable node has free.
func shortfall(req, largest placement.Resources) string {
	type amount struct{ want, have string }
	var short, all []amount
	add := func(want, have int64, format func(int64) string) {
		a := amount{format(want), format(have)}
		all = append(all, a)
		if have < want {
			short = append(short, a)
		}
	}
	if req.MilliCPU > 0 {
		add(req.MilliCPU, largest.MilliCPU, placement.FormatCPU)
	}
	if req.Memory > 0 {
		add(req.Memory, largest.Memory, placement.FormatMemory)
	}
	for _, name := range slices.Sorted(maps.Keys(req.Scalar)) {
		if v := req.Scalar[name]; v > 0 {
			add(v, largest.Scalar[name], func(n int64) string { return placement.FormatScalar(name, n) })
		}
	}
	join := func(as []amount, want bool) string {
		parts := make([]string, len(as))
		for i, a := range as {
			if want {
				parts[i] = a.want
			} else {
				parts[i] = a.have
			}
		}
		return strings.Join(parts, " and ")
	}
	if len(short) == 0 {
		// Every amount is free somewhere, never all on one node.
		return fmt.Sprintf("none has %s free at once (largest free, on different nodes: %s)", join(all, true), strings.ReplaceAll(join(all, false), " and ", ", "))
	}
	return fmt.Sprintf("none has %s free (largest free: %s)", join(short, true), strings.ReplaceAll(join(short, false), " and ", ", "))
}

// unusableNodes describes the nodes that the workload may not use, for
// example "2 are cordoned and 1 has a taint the workload does not tolerate
// (dedicated=gpu:NoSchedule)"; empty when there are none.
func unusableNodes(cordoned, tainted int, taint corev1.Taint) string {
	var parts []string
	switch cordoned {
	case 0:
	case 1:
		parts = append(parts, "1 is cordoned")
	default:
		parts = append(parts, fmt.Sprintf("%d are cordoned", cordoned))
	}
	switch tainted {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("1 has a taint the workload does not tolerate (%s)", taint.ToString()))
	default:
		parts = append(parts, fmt.Sprintf("%d have taints the workload does not tolerate (such as %s)", tainted, taint.ToString()))
	}
	return strings.Join(parts, " and ")
}

func nodes(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}
