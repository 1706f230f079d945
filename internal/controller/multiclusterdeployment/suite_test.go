package multiclusterdeployment_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller/cluster"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterdeployment"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/traffic"
)

// memberSpec is a member cluster of a test: its nodes' CPU and its declared
// latencies to the others.
type memberSpec struct {
	nodes     []string
	latencies map[string]time.Duration
	// cloud marks the member a cloud cluster (spec.cloud).
	cloud bool
}

type harness struct {
	env  *testenv.Env
	mgmt client.Client
	// members by Cluster name.
	members map[string]*testenv.Cluster
	// proxies stand between Meridian and each member, to cut it off.
	proxies map[string]*testenv.Proxy
	// failoverGrace is the MultiClusterDeployment controller's; zero holds
	// the replicas of unreachable members.
	failoverGrace time.Duration
	// traffic is the controller's traffic source; nil for none.
	traffic traffic.Source
	// lastReplicas remembers each member Deployment's replicas, for the fake
	// ReplicaSet controller.
	lastReplicas map[string]int32
}

// setup starts a management cluster and members named cluster1, cluster2,
// ..., joins them, and returns once they are Ready. The members have no
// controllers, so a fake kubelet marks every Meridian Deployment's replicas
// ready (unless held).
func setup(t *testing.T, specs ...memberSpec) *harness {
	t.Helper()
	return setupWithFailover(t, 0, specs...)
}

// setupWithFailover is setup with the controller failing over the replicas
// of members not ready for longer than grace.
func setupWithFailover(t *testing.T, grace time.Duration, specs ...memberSpec) *harness {
	t.Helper()
	return setupWithOptions(t, harness{failoverGrace: grace}, specs...)
}

// setupWithOptions is setup with the controller options opts sets
// (failoverGrace, traffic).
func setupWithOptions(t *testing.T, opts harness, specs ...memberSpec) *harness {
	t.Helper()
	env := testenv.Start(t, testenv.Options{Members: len(specs)})
	h := &harness{env: env, mgmt: env.Management.Client, members: map[string]*testenv.Cluster{},
		proxies: map[string]*testenv.Proxy{}, lastReplicas: map[string]int32{}, failoverGrace: opts.failoverGrace, traffic: opts.traffic}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "meridian-system"}}
	if err := h.mgmt.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	for i, sp := range specs {
		name := fmt.Sprintf("cluster%d", i+1)
		m := env.Members[i]
		h.members[name] = m
		for j, cpu := range sp.nodes {
			addNode(t, m.Client, fmt.Sprintf("%s-node%d", name, j+1), cpu)
		}
		h.proxies[name] = m.NewProxy(t)
		secret := m.KubeconfigSecret("meridian-system", name)
		kubeconfig, err := h.proxies[name].Kubeconfig(m.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		secret.Data["kubeconfig"] = kubeconfig
		if err := h.mgmt.Create(t.Context(), secret); err != nil {
			t.Fatal(err)
		}
		c := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Spec.KubeconfigSecretRef.Name = name
		c.Spec.Cloud = sp.cloud
		for other, d := range sp.latencies {
			c.Spec.Latencies = append(c.Spec.Latencies, multiclusterv1alpha1.ClusterLatency{Cluster: multiclusterv1alpha1.ClusterName(other), RTT: metav1.Duration{Duration: d}})
		}
		if err := h.mgmt.Create(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	h.startManager(t)
	go h.fakeKubelet(t.Context())
	return h
}

// startManager starts a fresh controller manager, as after a restart: a new
// inventory, new assumptions, the Cluster and MultiClusterDeployment
// controllers and the orphan sweeper.
func (h *harness) startManager(t *testing.T) *testenv.Manager {
	t.Helper()
	fw, err := plugins.NewFramework()
	if err != nil {
		t.Fatal(err)
	}
	inv := inventory.New(inventory.Options{ChangeInterval: 100 * time.Millisecond})
	mgr := h.env.StartManagerAs(t, "controller", func(mgr ctrl.Manager) error {
		if err := mgr.Add(inv); err != nil {
			return err
		}
		if err := (&cluster.Reconciler{
			Client: mgr.GetClient(), Inventory: inv, HeartbeatInterval: 500 * time.Millisecond, HeartbeatTimeout: time.Second,
		}).SetupWithManager(mgr); err != nil {
			return err
		}
		if err := mgr.Add(&propagation.Sweeper{Reader: mgr.GetAPIReader(), Inventory: inv, Interval: 500 * time.Millisecond, Kinds: []propagation.SweptKind{{
			OwnerKind: multiclusterdeployment.Kind,
			NewOwner:  func() client.Object { return &multiclusterv1alpha1.MultiClusterDeployment{} },
			NewLists:  func() []client.ObjectList { return []client.ObjectList{&appsv1.DeploymentList{}} },
		}}}); err != nil {
			return err
		}
		return (&multiclusterdeployment.Reconciler{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Inventory: inv, Framework: fw, Assumptions: placement.NewAssumptions(),
			Recorder: mgr.GetEventRecorder("multiclusterdeployment"), PendingGrace: time.Second, MoveCheck: 200 * time.Millisecond,
			FailoverGrace: h.failoverGrace, Traffic: h.traffic, TrafficInterval: time.Second,
		}).SetupWithManager(mgr)
	})
	eventually(t, "members Ready", func() string {
		for name := range h.members {
			c := &multiclusterv1alpha1.Cluster{}
			if err := h.mgmt.Get(t.Context(), client.ObjectKey{Name: name}, c); err != nil {
				return err.Error()
			}
			if !isTrue(c.Status.Conditions, multiclusterv1alpha1.ClusterReady) || c.Status.NodeCount == 0 {
				return fmt.Sprintf("%s not ready: %+v", name, c.Status.Conditions)
			}
		}
		// The inventory must see every member's nodes before placing.
		for name := range h.members {
			if s := inv.Snapshot(nil).Cluster(name); s == nil || !s.Ready || len(s.Nodes) == 0 {
				return fmt.Sprintf("inventory has no ready %s yet", name)
			}
		}
		return ""
	})
	return mgr
}

// fakeKubelet stands in for the members' controllers and kubelets: every
// Meridian Deployment reports its replicas ready, but for those of its pods
// the test made Pending; when a
// Deployment shrinks, its Pending pods go first, as the ReplicaSet
// controller removes unscheduled pods first.
func (h *harness) fakeKubelet(ctx context.Context) {
	for ctx.Err() == nil {
		for name, m := range h.members {
			var list appsv1.DeploymentList
			if err := m.Client.List(ctx, &list, client.MatchingLabels{multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian}); err != nil {
				continue
			}
			for i := range list.Items {
				d := &list.Items[i]
				spec := *d.Spec.Replicas
				key := name + "/" + d.Namespace + "/" + d.Name
				var pods corev1.PodList
				_ = m.Client.List(ctx, &pods, client.InNamespace(d.Namespace), client.MatchingLabels{multiclusterv1alpha1.LabelOwnerName: d.Name})
				pending := int32(len(pods.Items))
				if last, ok := h.lastReplicas[key]; ok && spec < last {
					gone := min(last-spec, pending)
					for j := range gone {
						_ = m.Client.Delete(ctx, &pods.Items[j], client.GracePeriodSeconds(0))
					}
					pending -= gone
				}
				h.lastReplicas[key] = spec
				ready := max(spec-pending, 0)
				if d.Status.ReadyReplicas == ready && d.Status.Replicas == spec && d.Status.ObservedGeneration == d.Generation {
					continue
				}
				d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UpdatedReplicas = spec, ready, ready, ready
				d.Status.ObservedGeneration = d.Generation
				_ = m.Client.Status().Update(ctx, d)
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func addNode(t *testing.T, c client.Client, name, cpu string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	// The API server taints new nodes not-ready; with no node lifecycle
	// controller here, the test lifts the taint as it would.
	n.Spec.Taints = nil
	if err := c.Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Status.Capacity = corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse("16Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	n.Status.Allocatable = n.Status.Capacity
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if err := c.Status().Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}

func isTrue(conds []metav1.Condition, kind string) bool {
	for _, c := range conds {
		if c.Type == kind {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, what, check)
}
