package multiclusterjob_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// memberJobs is parallelism/completions of the member Jobs of batch/render.
func memberJobs(t *testing.T, clients map[string]client.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, c := range clients {
		j := &batchv1.Job{}
		err := c.Get(t.Context(), client.ObjectKey{Namespace: "batch", Name: "render"}, j)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if j.DeletionTimestamp.IsZero() {
			out[name] = fmt.Sprintf("%d/%d", *j.Spec.Parallelism, *j.Spec.Completions)
		}
	}
	return out
}

// render is batch/render: parallelism pods of one CPU, completions in all,
// preferring cluster1 with substitution.
func render(parallelism, completions int32) *multiclusterv1alpha1.MultiClusterJob {
	mcj := &multiclusterv1alpha1.MultiClusterJob{ObjectMeta: metav1.ObjectMeta{Name: "render", Namespace: "batch"}}
	mcj.Spec.Parallelism = ptr.To(parallelism)
	mcj.Spec.Completions = ptr.To(completions)
	mcj.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	mcj.Spec.Template.Spec.Containers = []corev1.Container{{Name: "frame", Image: "registry.k8s.io/pause:3.10",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}
	mcj.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{"cluster1"}
	mcj.Spec.Placement.Substitution = &multiclusterv1alpha1.Substitution{Enabled: true}
	return mcj
}

func TestJobIsDividedRunsAndCompletes(t *testing.T) {
	mgmt, clients := setup(t)
	mcj := render(12, 24)
	if err := mgmt.Create(t.Context(), mcj); err != nil {
		t.Fatal(err)
	}

	// No cluster runs 12 one-CPU pods: cluster1 takes 2, its nearest
	// neighbour cluster3 8, cluster2 the last 2; completions follow.
	want := map[string]string{"cluster1": "2/4", "cluster2": "2/4", "cluster3": "8/16"}
	testenv.Eventually(t, 30*time.Second, "member Jobs", func() string { return cmp.Diff(want, memberJobs(t, clients)) })

	// The members' job controllers finish their Jobs.
	now := time.Now()
	completeMemberJobs(t, clients, now, now)
	testenv.Eventually(t, 30*time.Second, "Complete", func() string {
		got := &multiclusterv1alpha1.MultiClusterJob{}
		if err := mgmt.Get(t.Context(), client.ObjectKeyFromObject(mcj), got); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(got.Status.Conditions, multiclusterv1alpha1.ConditionComplete)
		if c == nil || c.Status != metav1.ConditionTrue || got.Status.Succeeded != 24 || got.Status.CompletionTime == nil {
			return fmt.Sprintf("complete=%+v succeeded=%d summary=%q", c, got.Status.Succeeded, got.Status.Summary)
		}
		if got.Status.Summary != "cluster1=2,cluster2=2,cluster3=8" {
			return fmt.Sprintf("summary %q", got.Status.Summary)
		}
		// A complete job stays Ready: placed, and no member Job failed.
		if r := meta.FindStatusCondition(got.Status.Conditions, multiclusterv1alpha1.ConditionReady); r == nil || r.Status != metav1.ConditionTrue || r.Reason != multiclusterv1alpha1.ReasonReady {
			return fmt.Sprintf("Ready %+v, want True with reason Ready", r)
		}
		return ""
	})

	if err := mgmt.Delete(t.Context(), mcj); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "member Jobs removed", func() string { return cmp.Diff(map[string]string{}, memberJobs(t, clients)) })
}

// TestUnschedulableJobMovesElsewhere: a member Job none of whose pods can
// be scheduled (for a reason the snapshot does not show) is moved, whole,
// to the nearest cluster with room once the pending grace period is over.
func TestUnschedulableJobMovesElsewhere(t *testing.T) {
	mgmt, clients := setup(t)
	mcj := render(2, 2)
	if err := mgmt.Create(t.Context(), mcj); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "member Job in cluster1", func() string {
		return cmp.Diff(map[string]string{"cluster1": "2/2"}, memberJobs(t, clients))
	})

	// cluster1's job controller makes the pods; its scheduler binds none.
	for i := range 2 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("render-%d", i), Namespace: "batch", Labels: map[string]string{
			multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian, multiclusterv1alpha1.LabelOwnerKind: "MultiClusterJob",
			multiclusterv1alpha1.LabelOwnerNamespace: "batch", multiclusterv1alpha1.LabelOwnerName: "render",
		}}}
		p.Spec.Containers = []corev1.Container{{Name: "frame", Image: "registry.k8s.io/pause:3.10"}}
		if err := clients["cluster1"].Create(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			LastTransitionTime: metav1.Now(), Message: "0/1 nodes are available: 1 node(s) had untolerated taint."}}
		if err := clients["cluster1"].Status().Update(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, 30*time.Second, "member Job moved to cluster3", func() string {
		return cmp.Diff(map[string]string{"cluster3": "2/2"}, memberJobs(t, clients))
	})
	testenv.Eventually(t, 30*time.Second, "status", func() string {
		got := &multiclusterv1alpha1.MultiClusterJob{}
		if err := mgmt.Get(t.Context(), client.ObjectKeyFromObject(mcj), got); err != nil {
			return err.Error()
		}
		return cmp.Diff("cluster3=2", got.Status.Summary)
	})
}

// completeMemberJobs finishes every member's Job as its job controller
// would: every completion succeeded, started at start and completed at end.
func completeMemberJobs(t *testing.T, clients map[string]client.Client, start, end time.Time) {
	t.Helper()
	for name, c := range clients {
		j := &batchv1.Job{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: "batch", Name: "render"}, j); err != nil {
			t.Fatal(err)
		}
		started, completed := metav1.NewTime(start), metav1.NewTime(end)
		j.Status.StartTime, j.Status.CompletionTime = &started, &completed
		j.Status.Succeeded = *j.Spec.Completions
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: completed},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: completed},
		}
		if err := c.Status().Update(t.Context(), j); err != nil {
			t.Fatalf("failed to complete the Job in %s: %v", name, err)
		}
	}
}
