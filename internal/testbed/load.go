package testbed

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// Load is the CPU a workload's users ask for, spread over its running pods
// in every member of a testbed (added clusters included), as a load
// balancer would: each pod's UsageCPUAnnotation says its share, and
// metrics-server reads it back through kwok. A multi-cluster HPA then sees
// the utilization a real application would show.
type Load struct {
	// Dir is the testbed's folder.
	Dir string
	// Namespace and Name are the MultiClusterDeployment's; its pods carry
	// Meridian's owner labels in every member.
	Namespace, Name string

	mu      sync.Mutex
	milli   int64
	clients map[string]client.Client // by cluster name and server
}

// Set changes the load, in CPU cores, from the next Apply on.
func (l *Load) Set(cores float64) {
	l.mu.Lock()
	l.milli = int64(cores * 1000)
	l.mu.Unlock()
}

// Spread is what one Apply did.
type Spread struct {
	// Pods is how many running pods share the load, PerPod each one's
	// share in millicores, and Clusters where they run.
	Pods     int
	PerPod   int64
	Clusters []string
}

// String puts a spread in words.
func (s Spread) String() string {
	if s.Pods == 0 {
		return "no running pod to take the load"
	}
	return fmt.Sprintf("%d pods at %dm CPU each in %v", s.Pods, s.PerPod, s.Clusters)
}

// Apply writes every running pod's share once. A member that cannot be
// reached is skipped: its pods keep their last share.
func (l *Load) Apply(ctx context.Context) (Spread, error) {
	tb, err := Open(l.Dir)
	if err != nil {
		return Spread{}, err
	}
	type pod struct {
		c client.Client
		p corev1.Pod
	}
	var pods []pod
	in := map[string]bool{}
	for _, cl := range tb.Members() {
		c, err := l.client(cl)
		if err != nil {
			continue
		}
		var list corev1.PodList
		if err := c.List(ctx, &list, client.InNamespace(l.Namespace), client.MatchingLabels{
			multiclusterv1alpha1.LabelOwnerNamespace: l.Namespace, multiclusterv1alpha1.LabelOwnerName: l.Name,
		}); err != nil {
			continue
		}
		for _, p := range list.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
				pods = append(pods, pod{c, p})
				in[cl.Name] = true
			}
		}
	}
	l.mu.Lock()
	milli := l.milli
	l.mu.Unlock()
	s := Spread{Pods: len(pods)}
	for name := range in {
		s.Clusters = append(s.Clusters, name)
	}
	slices.Sort(s.Clusters)
	if len(pods) == 0 {
		return s, nil
	}
	s.PerPod = milli / int64(len(pods))
	share := fmt.Sprintf("%dm", s.PerPod)
	for i := range pods {
		p := &pods[i]
		if p.p.Annotations[UsageCPUAnnotation] == share {
			continue
		}
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, UsageCPUAnnotation, share)
		if err := p.c.Patch(ctx, &p.p, client.RawPatch(types.MergePatchType, []byte(patch))); client.IgnoreNotFound(err) != nil {
			return s, fmt.Errorf("failed to write the CPU usage of pod %s/%s: %w", p.p.Namespace, p.p.Name, err)
		}
	}
	return s, nil
}

// client returns a client of cl, made once per cluster and API server.
func (l *Load) client(cl *Cluster) (client.Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := cl.Name + " " + cl.Server
	if c, ok := l.clients[key]; ok {
		return c, nil
	}
	c, err := cl.Client()
	if err != nil {
		return nil, err
	}
	if l.clients == nil {
		l.clients = map[string]client.Client{}
	}
	l.clients[key] = c
	return c, nil
}
