package propagation_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// member starts a member API server and connects an inventory to it: the
// client that writes, and the member's cached client the controllers read
// pods with.
func member(tb testing.TB) (client.Client, *inventory.Member) {
	tb.Helper()
	env := testenv.Start(tb, testenv.Options{Members: 1})
	cfg, err := clientcmd.RESTConfigFromKubeConfig(env.Members[0].Kubeconfig)
	if err != nil {
		tb.Fatal(err)
	}
	inv := inventory.New(inventory.Options{})
	m, err := inv.Connect(tb.Context(), "member-1", cfg, "h1")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { inv.Disconnect("member-1") })
	return env.Members[0].Client, m
}

func ownedPod(owner propagation.Owner, name, node string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: owner.Labels()}}
	p.Spec.NodeName = node
	p.Spec.Containers = []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}
	return p
}

func TestCountPodsCountsOneOwnersPodsFromTheMemberCache(t *testing.T) {
	mc, m := member(t)
	web := propagation.Owner{Kind: "MultiClusterDeployment", Namespace: "default", Name: "web"}
	other := propagation.Owner{Kind: "MultiClusterJob", Namespace: "default", Name: "web"}
	since := metav1.NewTime(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	pods := []*corev1.Pod{
		ownedPod(web, "bound", "n1"),
		ownedPod(web, "pending", ""),
		ownedPod(web, "done", "n1"),
		ownedPod(web, "waiting", ""), // not yet seen by a scheduler
		ownedPod(other, "job-bound", "n1"),
		{ObjectMeta: metav1.ObjectMeta{Name: "not-meridian", Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}},
	}
	for _, p := range pods {
		if err := mc.Create(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	pods[1].Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: since}}
	pods[2].Status.Phase = corev1.PodSucceeded
	for _, p := range pods[1:3] {
		if err := mc.Status().Update(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}

	want := propagation.PodCounts{Bound: 1, Pending: 1, PendingSince: since.Time}
	testenv.Eventually(t, 10*time.Second, "the owner's pods counted from the cache", func() string {
		got, err := propagation.CountPods(t.Context(), m, "default", web)
		if err != nil {
			return err.Error()
		}
		got.PendingSince = got.PendingSince.UTC()
		return cmp.Diff(want, got)
	})
	got, err := propagation.CountPods(t.Context(), m, "default", other)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(propagation.PodCounts{Bound: 1}, got); diff != "" {
		t.Errorf("pods of the MultiClusterJob of the same name (-want +got):\n%s", diff)
	}
}

// BenchmarkCountPods counts one workload's pods in a namespace of 4,000
// pods of 200 workloads, through the member's cached client: by the owner
// index (CountPods), and by the owner's label selector (how CountPods
// listed before the index, a scan of the namespace).
func BenchmarkCountPods(b *testing.B) {
	mc, m := member(b)
	const owners, each = 200, 20
	for i := range owners {
		o := propagation.Owner{Kind: "MultiClusterDeployment", Namespace: "default", Name: fmt.Sprintf("w%d", i)}
		for j := range each {
			if err := mc.Create(b.Context(), ownedPod(o, fmt.Sprintf("w%d-%d", i, j), "n1")); err != nil {
				b.Fatal(err)
			}
		}
	}
	owner := propagation.Owner{Kind: "MultiClusterDeployment", Namespace: "default", Name: "w7"}
	testenv.Eventually(b, time.Minute, "every pod in the cache", func() string {
		var all corev1.PodList
		if err := m.Client.List(b.Context(), &all); err != nil {
			return err.Error()
		}
		return cmp.Diff(owners*each, len(all.Items))
	})
	b.Run("owner-index", func(b *testing.B) {
		for b.Loop() {
			c, err := propagation.CountPods(b.Context(), m, "default", owner)
			if err != nil || c.Bound != each {
				b.Fatalf("CountPods = %+v, %v; want %d bound", c, err, each)
			}
		}
	})
	b.Run("label-selector", func(b *testing.B) {
		for b.Loop() {
			var pods corev1.PodList
			if err := m.Client.List(b.Context(), &pods, client.InNamespace("default"), owner.Selector()); err != nil || len(pods.Items) != each {
				b.Fatalf("List = %d pods, %v; want %d", len(pods.Items), err, each)
			}
		}
	})
}
