package cloudprovisioner

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/provision"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// cloudNode is a node of pool medium (2 CPU) in the given state.
type cloudNode struct {
	name            string
	ready, cordoned bool
	drainStarted    *time.Time
	unlabelled      bool
}

// cloudPod is a pod of 500m bound to a node, with what makes a drain
// leave it alone.
type cloudPod struct {
	name, node        string
	daemonSet, mirror bool
	succeeded         bool
	// guarded pods are covered by a PodDisruptionBudget that allows no
	// disruption.
	guarded bool
}

func createCloud(t *testing.T, c client.Client, nodes []cloudNode, pods []cloudPod) {
	t.Helper()
	ctx := t.Context()
	for _, cn := range nodes {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: cn.name, Labels: map[string]string{multiclusterv1alpha1.LabelNodePool: "medium"}}}
		if cn.unlabelled {
			n.Labels = nil
		}
		if err := c.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
		status := corev1.ConditionFalse
		if cn.ready {
			status = corev1.ConditionTrue
		}
		n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")}
		n.Status.Capacity = n.Status.Allocatable
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}
		if err := c.Status().Update(ctx, n); err != nil {
			t.Fatal(err)
		}
		if cn.cordoned {
			if err := patchNode(ctx, c, cn.name, "null", true); err != nil {
				t.Fatal(err)
			}
		}
		if cn.drainStarted != nil {
			if err := cordon(ctx, c, cn.name, cn.drainStarted); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, cp := range pods {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: cp.name}, Spec: corev1.PodSpec{
			NodeName: cp.node,
			Containers: []corev1.Container{{Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")},
			}}},
		}}
		if cp.daemonSet {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds-uid", Controller: ptr.To(true)}}
		}
		if cp.mirror {
			p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "hash"}
		}
		if cp.guarded {
			p.Labels = map[string]string{"app": cp.name}
			guard(t, c, cp.name)
		}
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if cp.succeeded {
			p.Status.Phase = corev1.PodSucceeded
			if err := c.Status().Update(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if cp.guarded {
			// Running and Ready: the Eviction API ignores budgets for a
			// pod still Pending.
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			if err := c.Status().Update(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// guard makes a PodDisruptionBudget that keeps the one pod labelled
// app=name, with the status kube-controller-manager's disruption controller
// would write (no disruption allowed), so that the API server refuses the
// pod's eviction (429) as on a real cluster.
func guard(t *testing.T, c client.Client, name string) {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: policyv1.PodDisruptionBudgetSpec{
		MinAvailable: ptr.To(intstr.FromInt32(1)),
		Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
	}}
	if err := c.Create(t.Context(), pdb); err != nil {
		t.Fatal(err)
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 0, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
	if err := c.Status().Update(t.Context(), pdb); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, c client.Client) *cloudRead {
	t.Helper()
	cr := &cloudRead{client: c}
	var nodes corev1.NodeList
	var pods corev1.PodList
	if err := c.List(t.Context(), &nodes); err != nil {
		t.Fatal(err)
	}
	if err := c.List(t.Context(), &pods); err != nil {
		t.Fatal(err)
	}
	cr.nodes, cr.pods = nodes.Items, pods.Items
	return cr
}

// TestCloudNodesAndDrains reads a cloud cluster of a real API server with
// a node in each condition, and takes its drains a step: a cordoned node
// is cordoned, not coming; a NotReady node is not Ready; DaemonSet, mirror
// and finished pods are not a node's pods (a node with only those is
// empty); a drain is read back from its node after a restart, evicts, and
// gives the node back at its timeout.
func TestCloudNodesAndDrains(t *testing.T) {
	if testing.Short() {
		t.Skip("needs an API server")
	}
	cl, err := testenv.StartCluster(t, "cloud")
	if err != nil {
		t.Fatal(err)
	}
	c := cl.Client
	now := time.Now().UTC().Truncate(time.Second)
	old := now.Add(-time.Hour)
	createCloud(t, c, []cloudNode{
		{name: "ready", ready: true},
		{name: "cordoned", ready: true, cordoned: true},
		{name: "notready"},
		{name: "draining", ready: true, drainStarted: &now},
		{name: "stuck", ready: true, drainStarted: &old},
		{name: "legacy", ready: true, unlabelled: true},
	}, []cloudPod{
		{name: "web", node: "ready"},
		{name: "agent", node: "ready", daemonSet: true},
		{name: "static", node: "ready", mirror: true},
		{name: "done", node: "ready", succeeded: true},
		{name: "agent-2", node: "legacy", daemonSet: true},
		{name: "moving", node: "draining"},
		{name: "guarded", node: "draining", guarded: true},
		{name: "pinned", node: "stuck"},
	})

	type view struct {
		Flavor                    string
		Ready, Cordoned, Draining bool
		RequestedCPU              int64
		Pods                      int
	}
	got := map[string]view{}
	for _, n := range nodeStates(read(t, c)) {
		got[n.Name] = view{n.Flavor, n.Ready, n.Cordoned, n.Draining, n.Requested.MilliCPU, len(n.Pods)}
		if n.Created.IsZero() {
			t.Errorf("node %s: no registration time", n.Name)
		}
	}
	want := map[string]view{
		"ready":    {Flavor: "medium", Ready: true, RequestedCPU: 1500, Pods: 1},
		"cordoned": {Flavor: "medium", Ready: true, Cordoned: true},
		"notready": {Flavor: "medium"},
		"draining": {Flavor: "medium", Ready: true, Cordoned: true, Draining: true, RequestedCPU: 1000, Pods: 2},
		"stuck":    {Flavor: "medium", Ready: true, Cordoned: true, Draining: true, RequestedCPU: 500, Pods: 1},
		"legacy":   {Flavor: cloud.DefaultPool, Ready: true, RequestedCPU: 500},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("node states (-want +got):\n%s", diff)
	}

	// A controller that has just started knows of no drain: it reads them
	// from the nodes, evicts what "draining" holds and gives "stuck" back.
	cp := &multiclusterv1alpha1.CloudProvisioner{ObjectMeta: metav1.ObjectMeta{Name: "burst"}}
	cp.Spec.CloudClusterName = "cloud"
	r := &Reconciler{Clock: clocktesting.NewFakeClock(now.Add(time.Minute)), Recorder: events.NewFakeRecorder(10)}
	spec := cloud.Spec{Name: "cloud", Pools: []cloud.Pool{{Name: "medium", Workers: 6}}}
	if err := stepDrains(t, r, cp, nil, &spec, provision.Observation{}, read(t, c)); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "moving"}, pod); err != nil {
		t.Fatal(err)
	}
	if pod.DeletionTimestamp.IsZero() {
		t.Errorf("pod moving on the draining node was not evicted")
	}
	// Its PodDisruptionBudget keeps guarded where it is: the eviction is
	// refused, and tried again at the next period until the drain's timeout.
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "guarded"}, pod); err != nil {
		t.Fatal(err)
	}
	if !pod.DeletionTimestamp.IsZero() {
		t.Errorf("pod guarded was evicted although its PodDisruptionBudget allows no disruption")
	}
	stuck := &corev1.Node{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "stuck"}, stuck); err != nil {
		t.Fatal(err)
	}
	if _, annotated := stuck.Annotations[multiclusterv1alpha1.AnnotationDrainStarted]; stuck.Spec.Unschedulable || annotated {
		t.Errorf("node stuck past the drain timeout: unschedulable %v, annotated %v; want it given back", stuck.Spec.Unschedulable, annotated)
	}
	// The evicted pod does not terminate (no kubelet here): it is waited
	// for, and the node is not removed while it is there.
	if spec.Pools[0].Workers != 6 {
		t.Errorf("pool medium asked for %d workers; want 6: no drained node is empty yet", spec.Pools[0].Workers)
	}
}

// recordingBackend records what Ensure is asked, and reads the
// CloudProvisioner's stored status at that moment: what a restart would
// start from.
type recordingBackend struct {
	c      client.Client
	key    client.ObjectKey
	asked  []cloud.Spec
	stored []multiclusterv1alpha1.NodePoolStatus
}

func (b *recordingBackend) Ensure(ctx context.Context, spec cloud.Spec) error {
	cp := &multiclusterv1alpha1.CloudProvisioner{}
	if err := b.c.Get(ctx, b.key, cp); err != nil {
		return err
	}
	b.asked, b.stored = append(b.asked, spec), cp.Status.Pools
	return nil
}

func (b *recordingBackend) Status(context.Context, cloud.Spec) (cloud.Status, error) {
	return cloud.Status{}, nil
}

func (b *recordingBackend) Delete(context.Context, cloud.Spec) error { return nil }

// TestDrainedNodeRemovalSurvivesARestart: a drained, empty node is asked to
// go only after the request (the pool's lower desiredNodes and the node in
// removing) is stored in status, so a controller restarted before the
// backend was asked asks for that same node again, and one restarted after
// never takes the node off its pool twice; the record goes once the node is
// gone.
func TestDrainedNodeRemovalSurvivesARestart(t *testing.T) {
	if testing.Short() {
		t.Skip("needs an API server")
	}
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client
	now := time.Now().UTC().Truncate(time.Second)
	started := now.Add(-time.Minute)
	createCloud(t, c, []cloudNode{
		{name: "emptied", ready: true, drainStarted: &started},
		{name: "busy", ready: true},
	}, []cloudPod{{name: "web", node: "busy"}})
	cp := &multiclusterv1alpha1.CloudProvisioner{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "burst"}}
	cp.Spec.CloudClusterName = "cloud"
	cp.Spec.Backend = multiclusterv1alpha1.BackendTestbed
	cp.Spec.Provider, cp.Spec.Region, cp.Spec.MaxNodes = "Testbed", "local", 4
	cp.Spec.Flavors = []multiclusterv1alpha1.CloudFlavor{{Name: "medium", CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi"), PricePerHour: usdPerHour("0.1")}}
	if err := c.Create(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	cp.Status.Pools = []multiclusterv1alpha1.NodePoolStatus{{Name: "medium", DesiredNodes: 2}}
	if err := c.Status().Update(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	backend := &recordingBackend{c: c, key: client.ObjectKeyFromObject(cp)}
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakeClock(now), Recorder: events.NewFakeRecorder(10)}
	obs := provision.Observation{Cloud: &provision.Cloud{Nodes: []provision.NodeState{{Name: "emptied", Flavor: "medium"}, {Name: "busy", Flavor: "medium"}}}}
	pass := func() {
		t.Helper()
		stored := &multiclusterv1alpha1.CloudProvisioner{}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(cp), stored); err != nil {
			t.Fatal(err)
		}
		spec, _, err := r.cloudSpec(t.Context(), stored)
		if err != nil {
			t.Fatal(err)
		}
		if err := stepDrains(t, r, stored, backend, &spec, obs, read(t, c)); err != nil {
			t.Fatal(err)
		}
	}

	pass()
	want := []multiclusterv1alpha1.NodePoolStatus{{Name: "medium", DesiredNodes: 1, Removing: []string{"emptied"}}}
	if diff := cmp.Diff(want, backend.stored); diff != "" {
		t.Errorf("status stored when the backend was asked (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]cloud.Pool{{Name: "medium", Flavor: "medium", Workers: 1, Remove: []string{"emptied"}}}, poolsOf(backend.asked)); diff != "" {
		t.Errorf("asked of the backend (-want +got):\n%s", diff)
	}

	// A restart: the node still exists (the backend is slow), and the next
	// controller reads the request back. It does not ask again, and the
	// pool does not lose a second worker.
	pass()
	if len(backend.asked) != 1 {
		t.Errorf("the backend was asked %d times; want once: the removal is recorded", len(backend.asked))
	}
	// The backend removes it: the record goes.
	if err := c.Delete(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "emptied"}}); err != nil {
		t.Fatal(err)
	}
	stored := &multiclusterv1alpha1.CloudProvisioner{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(cp), stored); err != nil {
		t.Fatal(err)
	}
	spec, _, err := r.cloudSpec(t.Context(), stored)
	if err != nil {
		t.Fatal(err)
	}
	forgetRemoved(&spec, read(t, c))
	if diff := cmp.Diff([]cloud.Pool{{Name: "medium", Flavor: "medium", Workers: 1, Remove: []string{}}}, poolsOf([]cloud.Spec{spec})); diff != "" {
		t.Errorf("pools once the node is gone (-want +got):\n%s", diff)
	}
}

// poolsOf is the pools of the specs, without sizes.
func poolsOf(specs []cloud.Spec) []cloud.Pool {
	var out []cloud.Pool
	for _, s := range specs {
		for _, p := range s.Pools {
			out = append(out, cloud.Pool{Name: p.Name, Flavor: p.Flavor, Workers: p.Workers, Remove: p.Remove})
		}
	}
	return out
}

// stepDrains takes the drains one step as a pass does: reads them from the
// nodes, steps them with provision.StepDrains and carries the steps out.
func stepDrains(t *testing.T, r *Reconciler, cp *multiclusterv1alpha1.CloudProvisioner, backend cloud.Backend, spec *cloud.Spec, obs provision.Observation, cr *cloudRead) error {
	t.Helper()
	drains, err := r.drains(t.Context(), spec, cr)
	if err != nil {
		return err
	}
	steps, drained := provision.StepDrains(drains, r.now())
	return r.continueDrains(t.Context(), cp, backend, spec, cloud.Status{}, obs, cr, steps, drained)
}
