package multiclusterdeployment_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// seedLatencies are the declared RTTs between three members: cluster1 is
// 2 ms from cluster3 and 20 ms from cluster2.
func seedLatencies() []memberSpec {
	return []memberSpec{
		{nodes: []string{"2"}, latencies: map[string]time.Duration{"cluster2": 20 * time.Millisecond, "cluster3": 2 * time.Millisecond}},
		{nodes: []string{"4", "4"}, latencies: map[string]time.Duration{"cluster3": 15 * time.Millisecond}},
		{nodes: []string{"4", "4"}},
	}
}

func mcd(name string, replicas int32, cpu string, placement multiclusterv1alpha1.Placement) *multiclusterv1alpha1.MultiClusterDeployment {
	d := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}}
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	d.Spec.Template.Labels = map[string]string{"app": name}
	d.Spec.Template.Spec.Containers = []corev1.Container{{
		Name: "app", Image: "registry.k8s.io/pause:3.10",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("512Mi")}},
	}}
	d.Spec.Placement = placement
	return d
}

// metricValue sums the samples of a metric family in controller-runtime's
// registry (what /metrics serves) whose labels include labels.
func metricValue(t *testing.T, family string, labels map[string]string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue next
				}
			}
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum
}

func (h *harness) create(t *testing.T, d *multiclusterv1alpha1.MultiClusterDeployment) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: d.Namespace}}
	if err := h.mgmt.Create(t.Context(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := h.mgmt.Create(t.Context(), d); err != nil {
		t.Fatal(err)
	}
}

// memberReplicas is the replicas of the member Deployments of name, per
// member (absent when there is none).
func (h *harness) memberReplicas(t *testing.T, name string) map[string]int32 {
	t.Helper()
	out := map[string]int32{}
	for cl, m := range h.members {
		d := &appsv1.Deployment{}
		err := m.Client.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: name}, d)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.DeletionTimestamp.IsZero() {
			out[cl] = *d.Spec.Replicas
		}
	}
	return out
}

func (h *harness) get(t *testing.T, name string) *multiclusterv1alpha1.MultiClusterDeployment {
	t.Helper()
	d := &multiclusterv1alpha1.MultiClusterDeployment{}
	if err := h.mgmt.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: name}, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// reasons is status.clusters as name -> "reason replicas".
func reasons(d *multiclusterv1alpha1.MultiClusterDeployment) map[string]string {
	out := map[string]string{}
	for _, c := range d.Status.Clusters {
		out[string(c.Name)] = fmt.Sprintf("%s %d", c.Reason, c.Replicas)
	}
	return out
}

func (h *harness) waitFor(t *testing.T, name string, want map[string]int32) {
	t.Helper()
	eventually(t, "member Deployments of "+name, func() string {
		if diff := cmp.Diff(want, h.memberReplicas(t, name)); diff != "" {
			return fmt.Sprintf("%s\nstatus: %+v", diff, h.get(t, name).Status)
		}
		return ""
	})
}

func TestPlacesOnThePreferredClusterAndExplains(t *testing.T) {
	h := setup(t, seedLatencies()...)
	h.create(t, mcd("web", 3, "500m", multiclusterv1alpha1.Placement{Locations: []multiclusterv1alpha1.ClusterName{"cluster2"}}))

	h.waitFor(t, "web", map[string]int32{"cluster2": 3})
	eventually(t, "status explains the decision", func() string {
		d := h.get(t, "web")
		want := map[string]string{"cluster1": "Filtered 0", "cluster2": "Preferred 3", "cluster3": "Filtered 0"}
		if diff := cmp.Diff(want, reasons(d)); diff != "" {
			return diff
		}
		if !isTrue(d.Status.Conditions, multiclusterv1alpha1.ConditionPlaced) || !isTrue(d.Status.Conditions, multiclusterv1alpha1.ConditionAvailable) {
			return fmt.Sprintf("conditions %+v", d.Status.Conditions)
		}
		// Ready summarises Placed, Propagated and Available.
		if r := meta.FindStatusCondition(d.Status.Conditions, multiclusterv1alpha1.ConditionReady); r == nil || r.Status != metav1.ConditionTrue ||
			r.Reason != multiclusterv1alpha1.ReasonReady || r.Message != "placed, propagated and available: cluster2=3" {
			return fmt.Sprintf("Ready %+v, want True: placed, propagated and available: cluster2=3", r)
		}
		if d.Status.Summary != "cluster2=3" || d.Status.ReadyReplicas != 3 {
			return fmt.Sprintf("summary %q ready %d", d.Status.Summary, d.Status.ReadyReplicas)
		}
		return ""
	})
	d := h.get(t, "web")
	for _, c := range d.Status.Clusters {
		if c.Name == "cluster1" && !strings.HasPrefix(c.Message, "locations: ") {
			t.Errorf("cluster1 is ruled out by %q, want the locations filter", c.Message)
		}
		if c.Reason == multiclusterv1alpha1.PlacementFiltered && c.Message == "" {
			t.Errorf("cluster %s is filtered without a reason", c.Name)
		}
	}

	if got := metricValue(t, "meridian_placement_decisions_total", map[string]string{"policy": "ClusterAffinity", "outcome": "placed"}); got < 1 {
		t.Errorf("meridian_placement_decisions_total{policy=ClusterAffinity,outcome=placed} = %v, want at least 1", got)
	}

	// The member Deployment is traced back to its owner, and its namespace
	// was created for it.
	md := &appsv1.Deployment{}
	if err := h.members["cluster2"].Client.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "web"}, md); err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string]string{
		multiclusterv1alpha1.LabelManagedBy: "meridian", multiclusterv1alpha1.LabelOwnerKind: "MultiClusterDeployment",
		multiclusterv1alpha1.LabelOwnerNamespace: "shop", multiclusterv1alpha1.LabelOwnerName: "web",
	}
	if diff := cmp.Diff(wantLabels, md.Labels); diff != "" {
		t.Errorf("member Deployment labels (-want +got):\n%s", diff)
	}
	if md.Annotations[multiclusterv1alpha1.AnnotationOwnerUID] != string(d.UID) {
		t.Errorf("member Deployment owner UID = %q, want %q", md.Annotations[multiclusterv1alpha1.AnnotationOwnerUID], d.UID)
	}
}

func TestOverflowIsSubstitutedNearestFirst(t *testing.T) {
	h := setup(t, seedLatencies()...)
	// cluster1 holds 2 one-CPU replicas; cluster3 is nearest to it.
	h.create(t, mcd("batch", 12, "1", multiclusterv1alpha1.Placement{
		Locations:    []multiclusterv1alpha1.ClusterName{"cluster1"},
		Substitution: &multiclusterv1alpha1.Substitution{Enabled: true, Policy: multiclusterv1alpha1.SubstituteNearestFirst},
	}))
	// No cluster holds all 12 one-CPU replicas: cluster1 takes the 2 it
	// holds, cluster3 (2 ms away) 8, and cluster2 (20 ms) the rest.
	h.waitFor(t, "batch", map[string]int32{"cluster1": 2, "cluster2": 2, "cluster3": 8})
	eventually(t, "reasons", func() string {
		return cmp.Diff(map[string]string{"cluster1": "Preferred 2", "cluster2": "Substitute 2", "cluster3": "Substitute 8"}, reasons(h.get(t, "batch")))
	})
}

// A member's own Deployment of the workload's name is never overwritten:
// the replicas go to the next cluster, and the status says why.
func TestAMembersOwnDeploymentIsLeftAlone(t *testing.T) {
	h := setup(t, seedLatencies()...)
	own := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Labels: map[string]string{"team": "theirs"}}}
	own.Spec.Replicas = ptr.To[int32](1)
	own.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "theirs"}}
	own.Spec.Template.Labels = map[string]string{"app": "theirs"}
	own.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}
	c1 := h.members["cluster1"].Client
	if err := c1.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := c1.Create(t.Context(), own); err != nil {
		t.Fatal(err)
	}
	h.create(t, mcd("web", 2, "500m", multiclusterv1alpha1.Placement{
		Locations:    []multiclusterv1alpha1.ClusterName{"cluster1"},
		Substitution: &multiclusterv1alpha1.Substitution{Enabled: true, Policy: multiclusterv1alpha1.SubstituteNearestFirst},
	}))
	eventually(t, "web in cluster3, the nearest substitute, and cluster1 explained", func() string {
		d := h.get(t, "web")
		if d.Status.Summary != "cluster3=2" {
			return fmt.Sprintf("summary %q", d.Status.Summary)
		}
		for _, c := range d.Status.Clusters {
			if c.Name == "cluster1" && (c.Reason != multiclusterv1alpha1.PlacementFiltered || !strings.Contains(c.Message, "its own Deployment")) {
				return fmt.Sprintf("cluster1: %s %s", c.Reason, c.Message)
			}
		}
		return ""
	})
	got := &appsv1.Deployment{}
	if err := c1.Get(t.Context(), client.ObjectKeyFromObject(own), got); err != nil {
		t.Fatal(err)
	}
	if got.Labels["team"] != "theirs" || *got.Spec.Replicas != 1 {
		t.Errorf("cluster1's own Deployment changed: labels %v, replicas %d", got.Labels, *got.Spec.Replicas)
	}
}

func TestScaleSubresourceMovesMemberReplicas(t *testing.T) {
	h := setup(t, seedLatencies()...)
	h.create(t, mcd("api", 2, "500m", multiclusterv1alpha1.Placement{Locations: []multiclusterv1alpha1.ClusterName{"cluster3"}}))
	h.waitFor(t, "api", map[string]int32{"cluster3": 2})

	// kubectl scale mcd api --replicas=5
	scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 5}}
	if err := h.mgmt.SubResource("scale").Update(t.Context(), h.get(t, "api"), client.WithSubResourceBody(scale)); err != nil {
		t.Fatalf("failed to scale through the scale subresource: %v", err)
	}
	h.waitFor(t, "api", map[string]int32{"cluster3": 5})
	eventually(t, "status replicas", func() string {
		if d := h.get(t, "api"); d.Status.Replicas != 5 || d.Status.ReadyReplicas != 5 {
			return fmt.Sprintf("replicas %d ready %d", d.Status.Replicas, d.Status.ReadyReplicas)
		}
		return ""
	})
}

func TestDeletionRemovesMemberDeployments(t *testing.T) {
	h := setup(t, seedLatencies()...)
	h.create(t, mcd("gone", 12, "1", multiclusterv1alpha1.Placement{
		Locations: []multiclusterv1alpha1.ClusterName{"cluster1"}, Substitution: &multiclusterv1alpha1.Substitution{Enabled: true},
	}))
	h.waitFor(t, "gone", map[string]int32{"cluster1": 2, "cluster2": 2, "cluster3": 8})
	if err := h.mgmt.Delete(t.Context(), h.get(t, "gone")); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, "gone", map[string]int32{})
	eventually(t, "MultiClusterDeployment gone", func() string {
		err := h.mgmt.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "gone"}, &multiclusterv1alpha1.MultiClusterDeployment{})
		if !apierrors.IsNotFound(err) {
			return fmt.Sprintf("get: %v", err)
		}
		return ""
	})
}

func TestOrphansAreCleanedUp(t *testing.T) {
	h := setup(t, seedLatencies()...)
	// A member Deployment whose owner never existed (or was deleted while
	// the member was away).
	orphan := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "ghost", Namespace: "default", Labels: map[string]string{
		multiclusterv1alpha1.LabelManagedBy: "meridian", multiclusterv1alpha1.LabelOwnerKind: "MultiClusterDeployment",
		multiclusterv1alpha1.LabelOwnerNamespace: "default", multiclusterv1alpha1.LabelOwnerName: "ghost",
	}}}
	orphan.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ghost"}}
	orphan.Spec.Template.Labels = map[string]string{"app": "ghost"}
	orphan.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}
	theirs := orphan.DeepCopy()
	theirs.Name, theirs.Labels = "users-own", map[string]string{"app": "users-own"}
	for _, d := range []*appsv1.Deployment{orphan, theirs} {
		if err := h.members["cluster2"].Client.Create(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "orphan removed", func() string {
		err := h.members["cluster2"].Client.Get(t.Context(), client.ObjectKeyFromObject(orphan), &appsv1.Deployment{})
		if !apierrors.IsNotFound(err) {
			return fmt.Sprintf("orphan still there: %v", err)
		}
		return ""
	})
	if err := h.members["cluster2"].Client.Get(t.Context(), client.ObjectKeyFromObject(theirs), &appsv1.Deployment{}); err != nil {
		t.Errorf("a Deployment Meridian did not make was touched: %v", err)
	}
}

func TestRestartNeitherDuplicatesNorRewrites(t *testing.T) {
	h := setup(t, seedLatencies()...)
	h.create(t, mcd("steady", 12, "1", multiclusterv1alpha1.Placement{
		Locations: []multiclusterv1alpha1.ClusterName{"cluster1"}, Substitution: &multiclusterv1alpha1.Substitution{Enabled: true},
	}))
	h.waitFor(t, "steady", map[string]int32{"cluster1": 2, "cluster2": 2, "cluster3": 8})
	versions := func() map[string]string {
		out := map[string]string{}
		for name, m := range h.members {
			var list appsv1.DeploymentList
			if err := m.Client.List(t.Context(), &list, client.InNamespace("shop")); err != nil {
				t.Fatal(err)
			}
			for _, d := range list.Items {
				out[name+"/"+d.Name] = string(d.UID) + "@" + fmt.Sprint(*d.Spec.Replicas)
			}
		}
		return out
	}
	before := versions()

	// The controller restarts: a new manager, inventory and assumptions.
	mgrs := h.startManager(t)
	time.Sleep(2 * time.Second) // several passes of the new manager
	if diff := cmp.Diff(before, versions()); diff != "" {
		t.Errorf("member Deployments changed across a restart (-before +after):\n%s", diff)
	}
	mgrs.Stop()
}

func TestUnschedulableOverflowIsPlacedElsewhere(t *testing.T) {
	h := setup(t, seedLatencies()...)
	h.create(t, mcd("stuck", 4, "1", multiclusterv1alpha1.Placement{
		Locations: []multiclusterv1alpha1.ClusterName{"cluster2"}, Bursting: &multiclusterv1alpha1.Bursting{Enabled: true},
	}))
	h.waitFor(t, "stuck", map[string]int32{"cluster2": 4})

	// cluster2's scheduler cannot bind two of the pods (for a reason the
	// snapshot does not show): they stay Pending, Unschedulable.
	for i := range 2 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("stuck-pending-%d", i), Namespace: "shop", Labels: map[string]string{
			"app": "stuck", multiclusterv1alpha1.LabelManagedBy: "meridian", multiclusterv1alpha1.LabelOwnerKind: "MultiClusterDeployment",
			multiclusterv1alpha1.LabelOwnerNamespace: "shop", multiclusterv1alpha1.LabelOwnerName: "stuck",
		}}}
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}
		m := h.members["cluster2"].Client
		if err := m.Create(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			LastTransitionTime: metav1.Now(), Message: "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."}}
		if err := m.Status().Update(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	// After the grace period the two go to the nearest cluster that has
	// room, and cluster2 keeps the two it runs.
	h.waitFor(t, "stuck", map[string]int32{"cluster2": 2, "cluster3": 2})
	eventually(t, "reasons", func() string {
		return cmp.Diff(map[string]string{"cluster1": "NotChosen 0", "cluster2": "Preferred 2", "cluster3": "Burst 2"}, reasons(h.get(t, "stuck")))
	})
}

func TestUnreachableMemberKeepsItsReplicas(t *testing.T) {
	h := setup(t, seedLatencies()...)
	h.create(t, mcd("held", 2, "500m", multiclusterv1alpha1.Placement{
		Locations: []multiclusterv1alpha1.ClusterName{"cluster2"}, Bursting: &multiclusterv1alpha1.Bursting{Enabled: true},
	}))
	h.waitFor(t, "held", map[string]int32{"cluster2": 2})
	h.proxies["cluster2"].Break()
	eventually(t, "held on cluster2", func() string {
		d := h.get(t, "held")
		if diff := cmp.Diff("Preferred 2", reasons(d)["cluster2"]); diff != "" {
			return diff
		}
		if d.Status.Summary != "cluster2=2" {
			return fmt.Sprintf("summary %q", d.Status.Summary)
		}
		for _, c := range d.Status.Clusters {
			if c.Name == "cluster2" && c.Message == "" {
				return "no message for the held cluster"
			}
		}
		return ""
	})
	time.Sleep(time.Second) // several passes while cluster2 is away
	if diff := cmp.Diff(map[string]int32{"cluster2": 2}, h.memberReplicas(t, "held")); diff != "" {
		t.Errorf("member Deployments while cluster2 is unreachable (-want +got):\n%s", diff)
	}
}

func TestFailoverAndReturnWithoutDuplicates(t *testing.T) {
	h := setupWithFailover(t, 2*time.Second, seedLatencies()...)
	h.create(t, mcd("resilient", 4, "500m", multiclusterv1alpha1.Placement{
		Locations: []multiclusterv1alpha1.ClusterName{"cluster2"}, Bursting: &multiclusterv1alpha1.Bursting{Enabled: true},
	}))
	h.waitFor(t, "resilient", map[string]int32{"cluster2": 4})

	// cluster2 is cut off beyond the grace period: its replicas are placed
	// on the nearest member (cluster3, 15 ms), while the member itself keeps
	// its stale Deployment, which nobody can reach.
	h.proxies["cluster2"].Break()
	h.waitFor(t, "resilient", map[string]int32{"cluster2": 4, "cluster3": 4})
	eventually(t, "status says cluster2 failed over", func() string {
		d := h.get(t, "resilient")
		if d.Status.Summary != "cluster3=4" {
			return fmt.Sprintf("summary %q", d.Status.Summary)
		}
		for _, c := range d.Status.Clusters {
			if c.Name == "cluster2" && !strings.Contains(c.Message, "placed elsewhere") {
				return fmt.Sprintf("cluster2: %s %q", c.Reason, c.Message)
			}
		}
		return ""
	})

	// cluster2 returns: its stale replicas count again and the excess is
	// given up, so 4 replicas run in all, not 8.
	h.proxies["cluster2"].Restore()
	eventually(t, "4 replicas in all after the return", func() string {
		total := int32(0)
		for _, n := range h.memberReplicas(t, "resilient") {
			total += n
		}
		if d := h.get(t, "resilient"); total != 4 || d.Status.Replicas != 4 {
			return fmt.Sprintf("member replicas %v (total %d), status %d (%s)", h.memberReplicas(t, "resilient"), total, d.Status.Replicas, d.Status.Summary)
		}
		return ""
	})
}

func TestReschedulerBringsReplicasHome(t *testing.T) {
	h := setup(t, seedLatencies()...)
	h.create(t, mcd("homebound", 10, "1", multiclusterv1alpha1.Placement{
		Locations: []multiclusterv1alpha1.ClusterName{"cluster1"}, Bursting: &multiclusterv1alpha1.Bursting{Enabled: true},
	}))
	// No cluster holds all 10 one-CPU replicas: cluster1 takes the 2 it
	// holds, the rest burst to cluster3, nearest to it.
	h.waitFor(t, "homebound", map[string]int32{"cluster1": 2, "cluster3": 8})

	// Without a MultiClusterRescheduler nothing moves, even with room at
	// home.
	addNode(t, h.members["cluster1"].Client, "cluster1-node2", "2")
	time.Sleep(2 * time.Second)
	if diff := cmp.Diff(map[string]int32{"cluster1": 2, "cluster3": 8}, h.memberReplicas(t, "homebound")); diff != "" {
		t.Fatalf("replicas moved without a rescheduler (-want +got):\n%s", diff)
	}

	// A disruption budget that no move can satisfy holds the removal: the
	// new replicas start at home, the old ones stay.
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "homebound"}}
	pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "homebound"}}
	pdb.Spec.MinAvailable = ptr.To(intstr.FromInt32(11))
	if err := h.mgmt.Create(t.Context(), pdb); err != nil {
		t.Fatal(err)
	}
	mcr := &multiclusterv1alpha1.MultiClusterRescheduler{ObjectMeta: metav1.ObjectMeta{Name: "mcr1"}}
	mcr.Spec.Interval = &metav1.Duration{Duration: time.Second}
	if err := h.mgmt.Create(t.Context(), mcr); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, "homebound", map[string]int32{"cluster1": 4, "cluster3": 8})
	eventually(t, "the move held by the budget", func() string {
		c := meta.FindStatusCondition(h.get(t, "homebound").Status.Conditions, multiclusterv1alpha1.ConditionPropagated)
		if c == nil || c.Reason != "DisruptionBudget" || !strings.Contains(c.Message, "PodDisruptionBudget homebound needs 11 ready replicas and the move would leave 10") {
			return fmt.Sprintf("Propagated %+v", c)
		}
		return ""
	})
	// Once the budget allows it, the replicas away go.
	if err := h.mgmt.Delete(t.Context(), pdb); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, "homebound", map[string]int32{"cluster1": 4, "cluster3": 6})
	eventually(t, "rescheduler status counts the move", func() string {
		got := &multiclusterv1alpha1.MultiClusterRescheduler{}
		if err := h.mgmt.Get(t.Context(), client.ObjectKey{Name: "mcr1"}, got); err != nil {
			return err.Error()
		}
		if got.Status.ReplicasMovedBack != 2 || got.Status.LastRunTime == nil {
			return fmt.Sprintf("status %+v", got.Status)
		}
		if d := h.get(t, "homebound"); d.Status.Summary != "cluster1=4,cluster3=6" {
			return fmt.Sprintf("summary %q", d.Status.Summary)
		}
		return ""
	})
}

// TestReschedulerEmptiesASettledCloud checks that replicas burst to a cloud
// cluster stay there while its CloudProvisioner forecasts a rising demand,
// and move to any member cluster with room, added there first, once it
// forecasts a settled one.
func TestReschedulerEmptiesASettledCloud(t *testing.T) {
	h := setup(t,
		memberSpec{nodes: []string{"2"}, latencies: map[string]time.Duration{"cluster2": 5 * time.Millisecond, "cluster3": 2 * time.Millisecond}},
		memberSpec{nodes: []string{"500m"}, latencies: map[string]time.Duration{"cluster3": 4 * time.Millisecond}},
		memberSpec{nodes: []string{"4"}, cloud: true},
	)
	h.create(t, mcd("burst", 6, "1", multiclusterv1alpha1.Placement{
		Locations: []multiclusterv1alpha1.ClusterName{"cluster1"}, Substitution: &multiclusterv1alpha1.Substitution{Enabled: true}, Bursting: &multiclusterv1alpha1.Bursting{Enabled: true},
	}))
	// cluster2 has no room for a replica yet: what home does not hold
	// bursts to the cloud.
	h.waitFor(t, "burst", map[string]int32{"cluster1": 2, "cluster3": 4})

	mcr := &multiclusterv1alpha1.MultiClusterRescheduler{ObjectMeta: metav1.ObjectMeta{Name: "mcr1"}}
	mcr.Spec.Interval = &metav1.Duration{Duration: time.Second}
	if err := h.mgmt.Create(t.Context(), mcr); err != nil {
		t.Fatal(err)
	}
	cp := &multiclusterv1alpha1.CloudProvisioner{ObjectMeta: metav1.ObjectMeta{Namespace: "meridian-system", Name: "cp1"}}
	cp.Spec.CloudClusterName = "cluster3"
	cp.Spec.Provider, cp.Spec.Backend = "Testbed", multiclusterv1alpha1.BackendTestbed
	cp.Spec.Region, cp.Spec.MaxNodes = "local", 4
	cp.Spec.Flavors = []multiclusterv1alpha1.CloudFlavor{{Name: "m1-large", CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi")}}
	if err := h.mgmt.Create(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	setTrend := func(trend multiclusterv1alpha1.DemandTrend) {
		cp.Status.Phase, cp.Status.DemandTrend = multiclusterv1alpha1.PhaseReady, trend
		if err := h.mgmt.Status().Update(t.Context(), cp); err != nil {
			t.Fatal(err)
		}
	}
	setTrend(multiclusterv1alpha1.DemandRising)

	// While the demand rises, room outside home is kept for bursts.
	addNode(t, h.members["cluster2"].Client, "cluster2-node2", "4")
	time.Sleep(3 * time.Second)
	if diff := cmp.Diff(map[string]int32{"cluster1": 2, "cluster3": 4}, h.memberReplicas(t, "burst")); diff != "" {
		t.Fatalf("replicas left the cloud while its demand rises (-want +got):\n%s", diff)
	}

	// Settled: the cloud's replicas go to the member with room.
	setTrend(multiclusterv1alpha1.DemandSettled)
	h.waitFor(t, "burst", map[string]int32{"cluster1": 2, "cluster2": 4})
	eventually(t, "the move explained", func() string {
		if d := h.get(t, "burst"); d.Status.Summary != "cluster1=2,cluster2=4" {
			return fmt.Sprintf("summary %q", d.Status.Summary)
		}
		var evs eventsv1.EventList
		if err := h.mgmt.List(t.Context(), &evs, client.InNamespace("shop")); err != nil {
			return err.Error()
		}
		for _, e := range evs.Items {
			if e.Reason == "LeftCloud" && strings.Contains(e.Note, "4 replicas leave settled cloud clusters for member clusters with room, 0 of them home") {
				return ""
			}
		}
		return fmt.Sprintf("%d events, none LeftCloud", len(evs.Items))
	})
}
