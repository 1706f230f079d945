package sim

import (
	"math"
	"slices"

	"github.com/meridian-dev/meridian/internal/autoscale"
)

// autoscale is one pass of the multi-cluster HPA over the services that
// have one: it sets their replicas, and their deployment controller places
// the change at once, as a spec change triggers it.
func (w *world) autoscale() {
	for _, wl := range slices.Clone(w.active) {
		if wl.hpa == nil {
			continue
		}
		running := int32(0)
		for _, p := range wl.pods {
			if p.Running() {
				running++
			}
		}
		util := 0.0
		if wl.load != nil && running > 0 {
			_, _, milli := wl.load.At(w.eng.Now())
			// The load is spread over the Running replicas, each of which
			// can use up to its request (limits equal requests).
			util = math.Min(100, 100*milli/float64(int64(running)*wl.spec.PodRequests.MilliCPU))
		}
		r := wl.hpa.Recommend(w.now(), autoscale.Observation{Current: wl.desired, Ready: running, Utilization: util})
		if r.Desired != wl.desired {
			wl.desired = r.Desired
			wl.generation++
			w.wantPlacement(wl)
		}
	}
}
