package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// progress counts how far the MultiClusterDeployments of the load
// namespace are.
type progress struct {
	// Total is how many exist; Current how many have a status of their
	// current generation; Placed how many of those say Placed.
	Total, Current, Placed int
	// Deployed is how many have member Deployments whose replicas sum to
	// the asked replicas (only counted when members are read).
	Deployed int
}

func (p progress) String() string {
	return fmt.Sprintf("%d MultiClusterDeployments: %d with a current status, %d placed, %d with their member Deployments", p.Total, p.Current, p.Placed, p.Deployed)
}

// readProgress lists the MultiClusterDeployments of ns page by page and,
// when withMembers, the member Deployments, and counts.
func readProgress(ctx context.Context, mgmt client.Client, members map[string]client.Client, ns string, withMembers bool) (progress, error) {
	var p progress
	want := map[string]int32{}
	var list multiclusterv1alpha1.MultiClusterDeploymentList
	opts := []client.ListOption{client.InNamespace(ns), client.Limit(1000)}
	for {
		if err := mgmt.List(ctx, &list, opts...); err != nil {
			return p, fmt.Errorf("failed to list MultiClusterDeployments: %w", err)
		}
		for i := range list.Items {
			d := &list.Items[i]
			p.Total++
			if d.Status.ObservedGeneration != d.Generation {
				continue
			}
			p.Current++
			if meta.IsStatusConditionTrue(d.Status.Conditions, multiclusterv1alpha1.ConditionPlaced) {
				p.Placed++
			}
			want[d.Name] = ptr.Deref(d.Spec.Replicas, 1)
		}
		if list.Continue == "" {
			break
		}
		opts = []client.ListOption{client.InNamespace(ns), client.Limit(1000), client.Continue(list.Continue)}
	}
	if !withMembers {
		return p, nil
	}
	got, err := memberReplicas(ctx, members, ns)
	if err != nil {
		return p, err
	}
	for name, n := range want {
		if got[name] == n {
			p.Deployed++
		}
	}
	return p, nil
}

// memberReplicas sums, over the members, the replicas of the member
// Deployments of ns, by name.
func memberReplicas(ctx context.Context, members map[string]client.Client, ns string) (map[string]int32, error) {
	out := map[string]int32{}
	var mu sync.Mutex
	err := eachMember(members, func(name string, c client.Client) error {
		var list appsv1.DeploymentList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return fmt.Errorf("failed to list Deployments in %s: %w", name, err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, d := range list.Items {
			out[d.Name] += ptr.Deref(d.Spec.Replicas, 1)
		}
		return nil
	})
	return out, err
}

// usage is what one member was asked to hold against what it has.
type usage struct {
	Member string
	// Requested sums, over the member Deployments of the load namespace,
	// replicas times each pod's requests; Allocatable sums its nodes'.
	Requested, Allocatable corev1.ResourceList
}

// utilization is the largest share of any resource (CPU, memory, pods)
// requested, 1 being full.
func (u usage) utilization() (float64, corev1.ResourceName) {
	var worst float64
	var which corev1.ResourceName
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		a := u.Allocatable[name]
		if a.IsZero() {
			continue
		}
		r := u.Requested[name]
		if f := float64(r.MilliValue()) / float64(a.MilliValue()); f > worst {
			worst, which = f, name
		}
	}
	return worst, which
}

func (u usage) overcommitted() bool {
	f, _ := u.utilization()
	return f > 1
}

// readUsage reads, for every member, its nodes' allocatable resources and
// the requests of what the member Deployments of ns ask, and the pods of
// ns by phase.
func readUsage(ctx context.Context, members map[string]client.Client, ns string) ([]usage, map[corev1.PodPhase]int, error) {
	var (
		mu     sync.Mutex
		out    []usage
		phases = map[corev1.PodPhase]int{}
	)
	err := eachMember(members, func(name string, c client.Client) error {
		u := usage{Member: name, Requested: corev1.ResourceList{}, Allocatable: corev1.ResourceList{}}
		var nodes corev1.NodeList
		if err := c.List(ctx, &nodes); err != nil {
			return fmt.Errorf("failed to list nodes of %s: %w", name, err)
		}
		for _, n := range nodes.Items {
			add(u.Allocatable, n.Status.Allocatable, 1)
		}
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, client.InNamespace(ns)); err != nil {
			return fmt.Errorf("failed to list Deployments in %s: %w", name, err)
		}
		for _, d := range deps.Items {
			n := int64(ptr.Deref(d.Spec.Replicas, 1))
			for _, ctr := range d.Spec.Template.Spec.Containers {
				add(u.Requested, ctr.Resources.Requests, n)
			}
			add(u.Requested, corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(1, resource.DecimalSI)}, n)
		}
		var pods corev1.PodList
		if err := c.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return fmt.Errorf("failed to list pods in %s: %w", name, err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, p := range pods.Items {
			phases[p.Status.Phase]++
		}
		out = append(out, u)
		return nil
	})
	slices.SortFunc(out, func(a, b usage) int {
		switch {
		case a.Member < b.Member:
			return -1
		case a.Member > b.Member:
			return 1
		}
		return 0
	})
	return out, phases, err
}

func add(sum, l corev1.ResourceList, times int64) {
	for name, q := range l {
		s := sum[name]
		s.Add(*resource.NewMilliQuantity(q.MilliValue()*times, q.Format))
		sum[name] = s
	}
}

// eachMember runs f on every member at once and joins the errors, in
// member order.
func eachMember(members map[string]client.Client, f func(name string, c client.Client) error) error {
	names := slices.Sorted(maps.Keys(members))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = f(name, members[name]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
