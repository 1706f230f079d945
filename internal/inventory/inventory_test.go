package inventory_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/testenv"
)

func node(name, cpu, mem string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"zone": "a"}}}
	n.Status.Capacity = corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(mem),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	n.Status.Allocatable = n.Status.Capacity
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	return n
}

func pod(name, nodeName, cpu string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	p.Spec.NodeName = nodeName
	p.Spec.Containers = []corev1.Container{{
		Name: "c", Image: "registry.k8s.io/pause:3.10",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi"),
		}},
	}}
	return p
}

func createNode(t *testing.T, c client.Client, n *corev1.Node) {
	t.Helper()
	status := n.Status
	if err := c.Create(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	n.Status = status
	if err := c.Status().Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotFollowsMemberNodesAndPods(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	member := env.Members[0]
	mc := member.Client

	inv := inventory.New(inventory.Options{ChangeInterval: 50 * time.Millisecond})
	go func() { _ = inv.Start(t.Context()) }()
	events := inv.Subscribe()

	createNode(t, mc, node("n1", "4", "16Gi"))
	createNode(t, mc, node("n2", "2", "4Gi"))
	running := pod("running", "n1", "1500m")
	if err := mc.Create(t.Context(), running); err != nil {
		t.Fatal(err)
	}
	done := pod("done", "n2", "1")
	if err := mc.Create(t.Context(), done); err != nil {
		t.Fatal(err)
	}
	done.Status.Phase = corev1.PodSucceeded
	if err := mc.Status().Update(t.Context(), done); err != nil {
		t.Fatal(err)
	}
	if err := mc.Create(t.Context(), pod("unbound", "", "1")); err != nil {
		t.Fatal(err)
	}

	cfg, err := clientcmd.RESTConfigFromKubeConfig(member.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inv.Connect(t.Context(), "member-1", cfg, "h1"); err != nil {
		t.Fatal(err)
	}
	cl := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member-1"}}
	cl.Spec.Region = "nantes"
	cl.Spec.Latencies = []multiclusterv1alpha1.ClusterLatency{{Cluster: "member-2", RTT: metav1.Duration{Duration: 2160 * time.Microsecond}}}
	inv.SetCluster(cl, true)

	// The first word of a member is a change of readiness.
	waitForEvent(t, events, "member-1", true)

	s := inv.Snapshot(nil)
	type nodeView struct {
		Name                    string
		AllocMilliCPU, ReqMilli int64
		ReqPods                 int64
		Unschedulable           bool
	}
	view := func(s *placement.Snapshot) []nodeView {
		var out []nodeView
		for _, n := range s.Cluster("member-1").Nodes {
			out = append(out, nodeView{n.Name, n.Allocatable.MilliCPU, n.Requested.MilliCPU, n.Requested.Pods, n.Unschedulable})
		}
		return out
	}
	want := []nodeView{
		{Name: "n1", AllocMilliCPU: 4000, ReqMilli: 1500, ReqPods: 1},
		{Name: "n2", AllocMilliCPU: 2000},
	}
	if diff := cmp.Diff(want, view(s)); diff != "" {
		t.Errorf("nodes of member-1 (-want +got):\n%s", diff)
	}
	if d, ok := s.Latency.Between("member-2", "member-1"); !ok || d != 2160*time.Microsecond {
		t.Errorf("latency member-2 to member-1 = %v, %v; want 2.16ms from member-1's declaration", d, ok)
	}
	if !s.Cluster("member-1").Ready || s.Cluster("member-1").Region != "nantes" {
		t.Errorf("cluster = %+v, want ready in nantes", s.Cluster("member-1").Cluster)
	}

	// The index follows deletions and cordons.
	// No kubelet confirms a graceful deletion here, so delete at once.
	if err := mc.Delete(t.Context(), running, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	n2 := &corev1.Node{}
	if err := mc.Get(t.Context(), client.ObjectKey{Name: "n2"}, n2); err != nil {
		t.Fatal(err)
	}
	n2.Spec.Unschedulable = true
	if err := mc.Update(t.Context(), n2); err != nil {
		t.Fatal(err)
	}
	want = []nodeView{
		{Name: "n1", AllocMilliCPU: 4000},
		{Name: "n2", AllocMilliCPU: 2000, Unschedulable: true},
	}
	eventually(t, func() string { return cmp.Diff(want, view(inv.Snapshot(nil))) })
	waitForEvent(t, events, "member-1", false)

	sum := mustMember(t, inv, "member-1").Summary()
	if got := sum.Allocatable.Cpu().String(); got != "4" {
		t.Errorf("allocatable CPU = %s, want 4 (the cordoned node left out)", got)
	}

	// A disconnected member stays known to nobody.
	inv.Disconnect("member-1")
	if s := inv.Snapshot(nil); s.Cluster("member-1") != nil {
		t.Errorf("snapshot still has member-1 after Disconnect")
	}
	waitForEvent(t, events, "member-1", true)
}

// waitForEvent waits for a change event of the named member that carries
// a change of readiness or, with readiness false, one of capacity alone.
func waitForEvent(t *testing.T, events <-chan event.GenericEvent, name string, readiness bool) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e := <-events:
			if e.Object.GetName() == name && inventory.ReadinessChanged(e.Object) == readiness {
				return
			}
		case <-timeout:
			t.Fatalf("no change event of %s with ReadinessChanged %v", name, readiness)
		}
	}
}

func mustMember(t *testing.T, inv *inventory.Inventory, name string) *inventory.Member {
	t.Helper()
	m, ok := inv.Member(name)
	if !ok {
		t.Fatalf("no member %s", name)
	}
	return m
}

func eventually(t *testing.T, check func() string) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, "index follows the member", check)
}

func TestHeartbeatOfAnUnreachableMemberFailsWithinTimeout(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	proxy := env.Members[0].NewProxy(t)
	kubeconfig, err := proxy.Kubeconfig(env.Members[0].Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	inv := inventory.New(inventory.Options{})
	m, err := inv.Connect(t.Context(), "member-1", cfg, "h")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inv.Disconnect("member-1") })
	version, err := m.Heartbeat(t.Context(), 5*time.Second)
	if err != nil || version == "" {
		t.Fatalf("heartbeat of a live member = %q, %v", version, err)
	}

	proxy.Break()
	if _, err := m.Heartbeat(t.Context(), time.Second); err == nil {
		t.Fatal("heartbeat of an unreachable member succeeded")
	}

	proxy.Restore()
	if _, err := m.Heartbeat(t.Context(), 5*time.Second); err != nil {
		t.Fatalf("heartbeat after the network came back: %v", err)
	}
}
