package agent

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// fineShapes round nothing away: offers are packed to the milli-CPU.
var fineShapes = sharing.ShapeOptions{
	CPUStep: resource.MustParse("1m"), MemoryStep: resource.MustParse("1"), PodsStep: 1,
	MinCPU: resource.MustParse("1m"), MinMemory: resource.MustParse("1"),
}

// planOffer packs every replica of the quote's components, largest first,
// into what each node can spare for consumer beyond every hold in l (on a
// copy: l is not changed) and outgoing's share, one slice per node. It
// returns the slices and the price of all of them per hour in outgoing's
// currency (free when it has no prices), or false when some replica fits
// no node: an offer is for the whole quote or nothing.
func planOffer(nodes []sharing.NodeSpare, l *sharing.Ledger, consumer sharingv1alpha1.ClusterID, quote *sharingv1alpha1.Quote, outgoing sharing.Outgoing, now time.Time) ([]sharingv1alpha1.NodeSlice, *sharingv1alpha1.Money, bool) {
	outgoing.Shapes = fineShapes
	probe, err := sharing.NewLedger(l.Holds()...).Advertise(nodes, consumer, "probe."+quote.Name, outgoing, now, now.Add(time.Hour))
	if err != nil {
		return nil, nil, false
	}
	free := map[string]corev1.ResourceList{}
	var order []string
	for _, s := range probe.Hold.Slices {
		free[s.Node] = corev1.ResourceList(s.Resources).DeepCopy()
		order = append(order, s.Node)
	}
	var reps []replica
	for _, c := range quote.Spec.Components {
		n := max(c.Replicas, 1)
		for range n {
			reps = append(reps, replica{requests: c.Requests})
		}
	}
	sort.SliceStable(reps, func(i, j int) bool {
		a, b := reps[i].requests[corev1.ResourceCPU], reps[j].requests[corev1.ResourceCPU]
		return a.Cmp(b) > 0
	})
	used := map[string]corev1.ResourceList{}
	for _, rep := range reps {
		need := rep.requests.DeepCopy()
		placed := false
		for _, n := range order {
			if _, ok := free[n][corev1.ResourcePods]; ok {
				need[corev1.ResourcePods] = resource.MustParse("1")
			} else {
				delete(need, corev1.ResourcePods)
			}
			if !sharing.Fits(need, free[n]) {
				continue
			}
			for r, q := range need {
				f := free[n][r]
				f.Sub(q)
				free[n][r] = f
				if used[n] == nil {
					used[n] = corev1.ResourceList{}
				}
				u := used[n][r]
				u.Add(q)
				used[n][r] = u
			}
			placed = true
			break
		}
		if !placed {
			return nil, nil, false
		}
	}
	var slices []sharingv1alpha1.NodeSlice
	for _, n := range order {
		if used[n] != nil {
			slices = append(slices, sharingv1alpha1.NodeSlice{Node: n, Shape: "offer", Resources: used[n]})
		}
	}
	pods := make([]corev1.ResourceList, 0, len(reps))
	for _, rep := range reps {
		pods = append(pods, rep.requests)
	}
	return slices, sharing.PriceOf(pods, outgoing.Prices, quote.Spec.Currency), true
}

// offerName is the Offer a provider writes for quote: named as the quote,
// so that the consumer finds it and the hold's key names it.
func offerName(quote string) string { return quote }

// replica is one pod of a quote's component.
type replica struct{ requests corev1.ResourceList }
