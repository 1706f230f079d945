package cloudprovisioner_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// apiServerBackend is a cloud.Backend whose clusters are real API servers
// started on this machine, with Node objects for workers: what a cloud
// does, minus the machines.
type apiServerBackend struct {
	t  *testing.T
	mu sync.Mutex
	// clusters by name.
	clusters map[string]*testenv.Cluster
	// workers numbers the workers of each cluster.
	workers map[string]int
	// created counts clusters started, to catch a second one asked for.
	created int
	// removed lists the worker names removed, in order.
	removed []string
}

var _ cloud.Backend = &apiServerBackend{}

func newAPIServerBackend(t *testing.T) *apiServerBackend {
	return &apiServerBackend{t: t, clusters: map[string]*testenv.Cluster{}, workers: map[string]int{}}
}

func (b *apiServerBackend) Ensure(ctx context.Context, spec cloud.Spec) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.clusters[spec.Name]
	if !ok {
		var err error
		if c, err = testenv.StartCluster(b.t, spec.Name); err != nil {
			return err
		}
		b.clusters[spec.Name] = c
		b.created++
	}
	for _, p := range spec.Pools {
		var nodes corev1.NodeList
		if err := c.Client.List(ctx, &nodes, client.MatchingLabels{multiclusterv1alpha1.LabelNodePool: p.Name}); err != nil {
			return err
		}
		names := make([]string, 0, len(nodes.Items))
		for _, n := range nodes.Items {
			names = append(names, n.Name)
		}
		// Named nodes go first, then the newest.
		sort.Slice(names, func(i, j int) bool {
			ri, rj := slices.Contains(p.Remove, names[i]), slices.Contains(p.Remove, names[j])
			if ri != rj {
				return ri
			}
			return names[i] > names[j]
		})
		for i := 0; len(names)-i > int(p.Workers); i++ {
			if err := c.Client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: names[i]}}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			b.removed = append(b.removed, names[i])
		}
		for i := len(names); i < int(p.Workers); i++ {
			b.workers[spec.Name]++
			name := fmt.Sprintf("%s-worker-%d", spec.Name, b.workers[spec.Name])
			if err := addNode(ctx, c.Client, name, p.NodeCPU, p.NodeMemory, map[string]string{multiclusterv1alpha1.LabelNodePool: p.Name}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *apiServerBackend) Status(ctx context.Context, spec cloud.Spec) (cloud.Status, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.clusters[spec.Name]
	if !ok {
		return cloud.Status{Message: "no such cluster"}, nil
	}
	var nodes corev1.NodeList
	if err := c.Client.List(ctx, &nodes); err != nil {
		return cloud.Status{}, err
	}
	n := int32(len(nodes.Items))
	st := cloud.Status{Exists: true, Ready: true, Kubeconfig: c.Kubeconfig, Workers: n, ReadyWorkers: n}
	for _, p := range spec.Pools {
		ps := cloud.PoolStatus{Name: p.Name}
		for _, node := range nodes.Items {
			if node.Labels[multiclusterv1alpha1.LabelNodePool] == p.Name {
				ps.Workers++
				ps.ReadyWorkers++
			}
		}
		st.Pools = append(st.Pools, ps)
	}
	return st, nil
}

func (b *apiServerBackend) Delete(_ context.Context, spec cloud.Spec) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.clusters[spec.Name]
	if !ok {
		return nil
	}
	delete(b.clusters, spec.Name)
	return c.Stop()
}

func (b *apiServerBackend) cluster(name string) (*testenv.Cluster, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.clusters[name], b.created
}

func addNode(ctx context.Context, c client.Client, name string, cpu, memory resource.Quantity, labels map[string]string) error {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if err := c.Create(ctx, n); err != nil {
		return err
	}
	// The API server taints new nodes not-ready; with no node lifecycle
	// controller here, the backend lifts the taint as it would.
	n.Spec.Taints = nil
	if err := c.Update(ctx, n); err != nil {
		return err
	}
	n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: memory, corev1.ResourcePods: resource.MustParse("110")}
	n.Status.Allocatable = n.Status.Capacity
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	return c.Status().Update(ctx, n)
}

// harness is a management cluster, one member with a 4-CPU node, and the
// controllers with an API-server-backed cloud.
type harness struct {
	env     *testenv.Env
	mgmt    client.Client
	backend *apiServerBackend
	mgr     *testenv.Manager
}

func setup(t *testing.T) *harness {
	t.Helper()
	env := testenv.Start(t, testenv.Options{Members: 1})
	h := &harness{env: env, mgmt: env.Management.Client, backend: newAPIServerBackend(t)}
	ctx := t.Context()
	for _, ns := range []string{"meridian-system", "shop"} {
		if err := h.mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	m := env.Members[0]
	if err := addNode(ctx, m.Client, "cluster1-node1", resource.MustParse("4"), resource.MustParse("16Gi"), nil); err != nil {
		t.Fatal(err)
	}
	if err := h.mgmt.Create(ctx, m.KubeconfigSecret("meridian-system", "cluster1")); err != nil {
		t.Fatal(err)
	}
	c := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "cluster1"}}
	c.Spec.KubeconfigSecretRef.Name = "cluster1"
	if err := h.mgmt.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	h.startManager(t)
	go h.fakeScheduler(ctx)
	eventually(t, "cluster1 Ready", func() string {
		c := &multiclusterv1alpha1.Cluster{}
		if err := h.mgmt.Get(ctx, client.ObjectKey{Name: "cluster1"}, c); err != nil {
			return err.Error()
		}
		if !meta.IsStatusConditionTrue(c.Status.Conditions, multiclusterv1alpha1.ClusterReady) || c.Status.NodeCount == 0 {
			return fmt.Sprintf("conditions %+v", c.Status.Conditions)
		}
		return ""
	})
	return h
}

// startManager starts every management-plane controller, as `meridian
// controller` does, with short periods.
func (h *harness) startManager(t *testing.T) {
	h.mgr = h.env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		_, err := controller.Setup(mgr, controller.Options{
			Namespace:         "meridian-system",
			HeartbeatInterval: 500 * time.Millisecond, HeartbeatTimeout: time.Second,
			PendingGrace: time.Second, OrphanSweepInterval: time.Second, AutoscaleInterval: time.Second,
			CloudBackends:     map[multiclusterv1alpha1.ProvisionerBackend]cloud.Backend{multiclusterv1alpha1.BackendTestbed: h.backend},
			ProvisionerPeriod: 300 * time.Millisecond,
		})
		return err
	})
}

// fakeScheduler stands in for kube-scheduler, the ReplicaSet controller and
// the kubelets of every cluster, the cloud's included: each Meridian
// Deployment gets as many pods as it asks for, bound to the first node with
// room for their CPU, or Pending as Unschedulable; the Deployment reports
// the bound ones ready.
func (h *harness) fakeScheduler(ctx context.Context) {
	for ctx.Err() == nil {
		members := map[string]client.Client{"cluster1": h.env.Members[0].Client}
		if c, _ := h.backend.cluster("cloud1"); c != nil {
			members["cloud1"] = c.Client
		}
		for _, c := range members {
			_ = schedule(ctx, c)
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func schedule(ctx context.Context, c client.Client) error {
	var nodes corev1.NodeList
	var deps appsv1.DeploymentList
	var pods corev1.PodList
	if err := c.List(ctx, &nodes); err != nil {
		return err
	}
	if err := c.List(ctx, &deps); err != nil {
		return err
	}
	if err := c.List(ctx, &pods); err != nil {
		return err
	}
	free := map[string]int64{}
	for _, n := range nodes.Items {
		free[n.Name] = n.Status.Allocatable.Cpu().MilliValue()
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			free[p.Spec.NodeName] -= placement.PodRequests(&p).MilliCPU
		}
	}
	// The garbage collector removes the pods of a deleted Deployment.
	exists := map[string]bool{}
	for _, d := range deps.Items {
		exists[d.Namespace+"/"+d.Labels[multiclusterv1alpha1.LabelOwnerName]] = true
	}
	for _, p := range pods.Items {
		if owner := p.Labels[multiclusterv1alpha1.LabelOwnerName]; owner != "" && !exists[p.Namespace+"/"+owner] {
			_ = c.Delete(ctx, &p, client.GracePeriodSeconds(0))
		}
	}
	for i := range deps.Items {
		d := &deps.Items[i]
		var mine []corev1.Pod
		for _, p := range pods.Items {
			if p.Namespace == d.Namespace && p.Labels[multiclusterv1alpha1.LabelOwnerName] == d.Labels[multiclusterv1alpha1.LabelOwnerName] {
				if _, ok := free[p.Spec.NodeName]; ok || p.Spec.NodeName == "" {
					mine = append(mine, p)
				} else {
					_ = c.Delete(ctx, &p, client.GracePeriodSeconds(0)) // its node is gone
				}
			}
		}
		// Unbound pods go first on a scale-down, as the ReplicaSet
		// controller removes unscheduled pods first.
		sort.SliceStable(mine, func(a, b int) bool { return mine[a].Spec.NodeName == "" && mine[b].Spec.NodeName != "" })
		want := int(*d.Spec.Replicas)
		for len(mine) > want {
			p := mine[0]
			mine = mine[1:]
			if p.Spec.NodeName != "" {
				free[p.Spec.NodeName] += placement.PodRequests(&p).MilliCPU
			}
			_ = c.Delete(ctx, &p, client.GracePeriodSeconds(0))
		}
		req := placement.PodRequests(&corev1.Pod{Spec: d.Spec.Template.Spec}).MilliCPU
		for len(mine) < want {
			p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, GenerateName: d.Name + "-", Labels: d.Spec.Template.Labels}, Spec: d.Spec.Template.Spec}
			if err := c.Create(ctx, &p); err != nil {
				return err
			}
			mine = append(mine, p)
		}
		ready := int32(0)
		for j := range mine {
			p := &mine[j]
			if p.Spec.NodeName == "" {
				if node := fit(nodes.Items, free, req); node != "" {
					free[node] -= req
					if err := c.SubResource("binding").Create(ctx, p, &corev1.Binding{Target: corev1.ObjectReference{Kind: "Node", Name: node}}); err == nil {
						p.Spec.NodeName = node
					}
				} else if len(p.Status.Conditions) == 0 {
					p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.Now()}}
					_ = c.Status().Update(ctx, p)
				}
			}
			if p.Spec.NodeName != "" {
				ready++
			}
		}
		if d.Status.ReadyReplicas != ready || d.Status.Replicas != *d.Spec.Replicas || d.Status.ObservedGeneration != d.Generation {
			d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UpdatedReplicas = *d.Spec.Replicas, ready, ready, ready
			d.Status.ObservedGeneration = d.Generation
			_ = c.Status().Update(ctx, d)
		}
	}
	return nil
}

func fit(nodes []corev1.Node, free map[string]int64, req int64) string {
	for _, n := range nodes {
		if free[n.Name] >= req {
			return n.Name
		}
	}
	return ""
}

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}
