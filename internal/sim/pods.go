package sim

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/sim/cluster"
)

func resourceMilli(m int64) *resource.Quantity {
	return resource.NewMilliQuantity(m, resource.DecimalSI)
}
func resourceBytes(b int64) *resource.Quantity { return resource.NewQuantity(b, resource.BinarySI) }

// createPods creates n replicas of wl in m, as the propagation controller
// creating or scaling the member's Deployment or Job would.
func (w *world) createPods(wl *mcWorkload, m *member, n int32) {
	for range n {
		w.nextPod++
		p := &cluster.Pod{ID: w.nextPod, Workload: wl.spec.Key, Requests: wl.spec.PodRequests, Data: &podState{w: wl, member: m, alive: true, createdAt: w.eng.Now()}}
		wl.pods = append(wl.pods, p)
		w.version++
		m.AddPod(p)
	}
}

// onBind runs when a member's scheduler binds a pod: a job replica starts
// its clock.
func (w *world) onBind(p *cluster.Pod) {
	w.version++
	st := p.Data.(*podState)
	st.boundAt = w.eng.Now()
	if m := w.byName[p.Cluster.Name]; m != nil {
		m.scheduled++
	}
	if st.w.spec.Kind != placement.KindJob {
		return
	}
	boundAt := st.boundAt
	w.eng.After(st.w.duration, func() {
		if st.alive && p.Running() && st.boundAt == boundAt {
			w.complete(p)
		}
	})
}

// complete ends a job replica that ran its course.
func (w *world) complete(p *cluster.Pod) {
	st := p.Data.(*podState)
	wl := st.w
	w.deletePod(p)
	wl.completed++
	w.completed++
	if j := wl.jobs[st.member.Name]; j != nil {
		j.succeeded++
	}
	if wl.asked() <= 0 {
		w.finish(wl)
	}
}

// deletePod removes one pod from its cluster and its workload.
func (w *world) deletePod(p *cluster.Pod) {
	st := p.Data.(*podState)
	st.alive = false
	wl := st.w
	if i := slices.Index(wl.pods, p); i >= 0 {
		wl.pods = slices.Delete(wl.pods, i, i+1)
	}
	if p.Cluster != nil {
		p.Cluster.DeletePod(p)
	}
	w.version++
	w.capacityChanged()
}

// onEvicted handles pods whose node was removed: they are gone, and are
// created again in the same member, as the member's ReplicaSet or Job
// controller does (they may stay Pending there until their overflow is
// moved); a job replica starts over.
func (w *world) onEvicted(pods []*cluster.Pod) {
	for _, p := range pods {
		st := p.Data.(*podState)
		st.alive = false
		if i := slices.Index(st.w.pods, p); i >= 0 {
			st.w.pods = slices.Delete(st.w.pods, i, i+1)
		}
		w.evicted++
		from := st.member
		if (st.w.deployments[from.Name] != nil || st.w.jobs[from.Name] != nil) && w.byName[from.Name] == from {
			w.createPods(st.w, from, 1)
		}
	}
	w.version++
}

// finish removes a workload that completed or was deleted.
func (w *world) finish(wl *mcWorkload) {
	if wl.done {
		return
	}
	wl.done = true
	for len(wl.pods) > 0 {
		w.deletePod(wl.pods[len(wl.pods)-1])
	}
	delete(w.byKey, wl.spec.Key)
	w.assumptions.Forget(wl.spec.Key)
	if i := slices.Index(w.active, wl); i >= 0 {
		w.active = slices.Delete(w.active, i, i+1)
	}
	if len(wl.jobs) > 0 {
		// A completed job stays, with its member Jobs, until it is deleted.
		w.completedJobs = append(w.completedJobs, wl)
	}
}

// podCounts is what each member shows of wl's pods, as the controllers
// count them (propagation.CountPods): bound, and Pending since when.
func (wl *mcWorkload) podCounts() map[string]propagation.PodCounts {
	out := map[string]propagation.PodCounts{}
	for _, p := range wl.pods {
		c := out[p.Cluster.Name]
		if p.Running() {
			c.Bound++
		} else {
			since := epoch.Add(p.Data.(*podState).createdAt)
			if c.Pending == 0 || since.Before(c.PendingSince) {
				c.PendingSince = since
			}
			c.Pending++
		}
		out[p.Cluster.Name] = c
	}
	return out
}
