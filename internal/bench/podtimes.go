package bench

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
)

// podTimes records, from the members' pod watches, when each pod was first
// seen, first bound to a node and first Running: the stages of the members'
// own work once Meridian has written their Deployments.
type podTimes struct {
	mu    sync.Mutex
	byUID map[types.UID]*podTime
}

type podTime struct {
	app                  string
	seen, bound, running time.Time
}

func newPodTimes() *podTimes { return &podTimes{byUID: map[types.UID]*podTime{}} }

// handler records every pod the watch adds or updates.
func (t *podTimes) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { t.record(obj, time.Now()) },
		UpdateFunc: func(_, obj any) { t.record(obj, time.Now()) },
	}
}

func (t *podTimes) record(obj any, now time.Time) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	pt := t.byUID[p.UID]
	if pt == nil {
		pt = &podTime{app: p.Labels["app"], seen: now}
		t.byUID[p.UID] = pt
	}
	if pt.bound.IsZero() && p.Spec.NodeName != "" {
		pt.bound = now
	}
	if pt.running.IsZero() && p.Status.Phase == corev1.PodRunning {
		pt.running = now
	}
}

// last returns, over the pods labelled app=name, how long after start the
// last was first seen and the last was bound; a pod never bound counts as
// bound when it was seen Running.
func (t *podTimes) last(name string, start time.Time) (created, bound time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, pt := range t.byUID {
		if pt.app != name {
			continue
		}
		created = max(created, pt.seen.Sub(start))
		b := pt.bound
		if b.IsZero() {
			b = pt.running
		}
		if !b.IsZero() {
			bound = max(bound, b.Sub(start))
		}
	}
	return created, bound
}
