package multiclusterhpa

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/placement"
)

// usage is the CPU of the target's pods that report metrics, over members.
type usage struct {
	// ready counts the Running pods with metrics; usedMilli and
	// requestedMilli sum their CPU usage and requests.
	ready                     int32
	usedMilli, requestedMilli int64
	// unmeasured counts the Running pods without metrics yet (new pods
	// wait for metrics-server's next scrape).
	unmeasured int32
	// missing names the members whose pods have no metrics, and why.
	missing []string
}

// utilization is the average CPU utilization in percent of the request.
func (u usage) utilization() float64 {
	if u.requestedMilli == 0 {
		return 0
	}
	return 100 * float64(u.usedMilli) / float64(u.requestedMilli)
}

// readUsage reads, from every ready member, the target's Running pods and
// their PodMetrics.
func readUsage(ctx context.Context, inv *inventory.Inventory, namespace string, selector client.MatchingLabels) usage {
	var u usage
	for name, ready := range inv.Readiness() {
		m, ok := inv.Member(name)
		if !ok || !ready {
			continue
		}
		var pods corev1.PodList
		if err := m.Client.List(ctx, &pods, client.InNamespace(namespace), selector); err != nil {
			u.missing = append(u.missing, fmt.Sprintf("%s: failed to list pods: %v", name, err))
			continue
		}
		running := map[string]*corev1.Pod{}
		for i := range pods.Items {
			if p := &pods.Items[i]; p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
				running[p.Name] = p
			}
		}
		if len(running) == 0 {
			continue
		}
		var metrics metricsv1beta1.PodMetricsList
		err := m.APIReader.List(ctx, &metrics, client.InNamespace(namespace), selector)
		switch {
		case meta.IsNoMatchError(err):
			u.missing = append(u.missing, fmt.Sprintf("%s does not serve metrics.k8s.io (install metrics-server)", name))
			continue
		case err != nil:
			u.missing = append(u.missing, fmt.Sprintf("%s: failed to read pod metrics: %v", name, err))
			continue
		}
		seen := 0
		for _, pm := range metrics.Items {
			p := running[pm.Name]
			if p == nil {
				continue
			}
			seen++
			u.ready++
			for _, ctr := range pm.Containers {
				u.usedMilli += ctr.Usage.Cpu().MilliValue()
			}
			u.requestedMilli += placement.PodRequests(p).MilliCPU
		}
		if seen < len(running) {
			u.unmeasured += int32(len(running) - seen)
			u.missing = append(u.missing, fmt.Sprintf("%s: %d of %d running pods have no metrics yet", name, len(running)-seen, len(running)))
		}
	}
	return u
}
