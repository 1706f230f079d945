package resourceplacement_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// holders lists the members that hold obj's namespace and name, of obj's
// type.
func holders(t *testing.T, clients map[string]client.Client, obj client.Object) []string {
	t.Helper()
	var out []string
	for _, name := range slices.Sorted(maps.Keys(clients)) {
		o := obj.DeepCopyObject().(client.Object)
		err := clients[name].Get(t.Context(), client.ObjectKeyFromObject(obj), o)
		switch {
		case err == nil:
			out = append(out, name)
		case !apierrors.IsNotFound(err):
			t.Fatal(err)
		}
	}
	return out
}

// condition reads a ResourcePlacement's condition as "Status Reason: message".
func condition(t *testing.T, c client.Client, name, kind string) string {
	t.Helper()
	rp := &multiclusterv1alpha1.ResourcePlacement{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: name}, rp); err != nil {
		return err.Error()
	}
	cond := meta.FindStatusCondition(rp.Status.Conditions, kind)
	if cond == nil {
		return "no " + kind + " condition"
	}
	return fmt.Sprintf("%s %s: %s", cond.Status, cond.Reason, cond.Message)
}

func TestObjectsCopiedWholeFollowTheirPolicy(t *testing.T) {
	mgmt, clients := setup(t, 3)
	ctx := t.Context()
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: "shop"}, Data: map[string]string{"greeting": "hello"}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	pp := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}
	pp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "web-config"}, {APIVersion: "v1", Kind: "Service"},
		{APIVersion: "apps/v1", Kind: "Deployment"},
	}
	pp.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.ClusterAffinity, Locations: []multiclusterv1alpha1.ClusterName{"cluster1", "cluster2"}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}
	d.Spec.Replicas = ptr.To[int32](2)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}
	for _, obj := range []client.Object{config, svc, d, pp} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the ConfigMap and the Service in cluster1 and cluster2", func() string {
		return cmp.Diff([]string{"cluster1", "cluster2"}, holders(t, clients, config)) + cmp.Diff([]string{"cluster1", "cluster2"}, holders(t, clients, svc))
	})
	eventually(t, "the ConfigMap's placement Ready", func() string {
		return cmp.Diff("True Ready: placed and propagated: cluster1,cluster2", condition(t, mgmt, "configmap-web-config", multiclusterv1alpha1.ConditionReady))
	})
	// Each member allocates its own cluster IP: the template's is not
	// copied.
	got := &corev1.Service{}
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(svc), svc); err != nil {
		t.Fatal(err)
	}
	if err := clients["cluster1"].Get(ctx, client.ObjectKeyFromObject(svc), got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.ClusterIP == "" || got.Labels[multiclusterv1alpha1.LabelOwnerKind] != "ResourcePlacement" {
		t.Errorf("member Service: clusterIP %q, labels %v; want its own cluster IP and Meridian's owner labels", got.Spec.ClusterIP, got.Labels)
	}
	// A Deployment's replicas are divided by the deployment pass: both
	// fit in one of the locations (the first, cluster1, unless it was not
	// connected yet when the placement was first decided; a placed
	// workload then stays where it is).
	var home string
	eventually(t, "the Deployment's replicas in one location", func() string {
		h := holders(t, clients, d)
		if len(h) != 1 || h[0] == "cluster3" {
			return fmt.Sprintf("member Deployments in %v", h)
		}
		home = h[0]
		return cmp.Diff("True Placed: every replica has a cluster: "+home+"=2", condition(t, mgmt, "deployment.apps-web", multiclusterv1alpha1.ConditionPlaced))
	})
	member := &appsv1.Deployment{}
	if err := clients[home].Get(ctx, client.ObjectKeyFromObject(d), member); err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(member.Spec.Replicas, 0) != 2 || member.Labels[multiclusterv1alpha1.LabelOwnerKind] != "ResourcePlacement" {
		t.Errorf("member Deployment: %d replicas, labels %v; want 2, owned by its ResourcePlacement", ptr.Deref(member.Spec.Replicas, 0), member.Labels)
	}
	// The member's Deployment controller (none runs here) reports its
	// replicas ready: the template sums them, observes its generation and
	// says the rollout is done, as kubectl rollout status reads it.
	member.Status = appsv1.DeploymentStatus{ObservedGeneration: member.Generation, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
	if err := clients[home].Status().Update(ctx, member); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the template's status sums its members", func() string {
		tpl := &appsv1.Deployment{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(d), tpl); err != nil {
			return err.Error()
		}
		st := tpl.Status
		got := fmt.Sprintf("observed %d of %d, replicas %d, updated %d, ready %d, available %d", st.ObservedGeneration, tpl.Generation, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas)
		for _, c := range st.Conditions {
			got += fmt.Sprintf(", %s=%s %s", c.Type, c.Status, c.Reason)
		}
		return cmp.Diff("observed 1 of 1, replicas 2, updated 2, ready 2, available 2, Available=True MinimumReplicasAvailable, Progressing=True NewReplicaSetAvailable", got)
	})

	// An edit reaches the copies; a new location moves them.
	config.Data["greeting"] = "bonjour"
	if err := mgmt.Update(ctx, config); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the edit in both copies", func() string {
		for _, name := range []string{"cluster1", "cluster2"} {
			cm := &corev1.ConfigMap{}
			if err := clients[name].Get(ctx, client.ObjectKeyFromObject(config), cm); err != nil {
				return err.Error()
			}
			if cm.Data["greeting"] != "bonjour" {
				return name + ": " + cm.Data["greeting"]
			}
		}
		return ""
	})
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(pp), pp); err != nil {
		t.Fatal(err)
	}
	pp.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{"cluster3"}
	if err := mgmt.Update(ctx, pp); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the copies moved to cluster3", func() string {
		return cmp.Diff([]string{"cluster3"}, holders(t, clients, config)) + cmp.Diff([]string{"cluster3"}, holders(t, clients, svc))
	})

	// A member's own object of the same name is never overwritten: the
	// placement says so, and the member keeps it.
	own := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "shop"}, Data: map[string]string{"mine": "yes"}}
	if err := clients["cluster3"].Create(ctx, own.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	tplSettings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "shop"}, Data: map[string]string{"mine": "no"}}
	if err := mgmt.Create(ctx, tplSettings); err != nil {
		t.Fatal(err)
	}
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(pp), pp); err != nil {
		t.Fatal(err)
	}
	pp.Spec.ResourceSelectors = append(pp.Spec.ResourceSelectors, multiclusterv1alpha1.ResourceSelector{APIVersion: "v1", Kind: "ConfigMap", Name: "settings"})
	if err := mgmt.Update(ctx, pp); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a Conflict on the settings placement", func() string {
		if got := condition(t, mgmt, "configmap-settings", multiclusterv1alpha1.ConditionPropagated); !strings.HasPrefix(got, "False Conflict: cluster3 already has a ConfigMap of this name") {
			return got
		}
		return ""
	})
	mine := &corev1.ConfigMap{}
	if err := clients["cluster3"].Get(ctx, client.ObjectKeyFromObject(own), mine); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(own.Data, mine.Data); diff != "" {
		t.Errorf("cluster3's own ConfigMap was changed (-want +got):\n%s", diff)
	}

	// The template deleted: its copies go.
	if err := mgmt.Delete(ctx, config); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ConfigMap's copy removed", func() string { return cmp.Diff([]string(nil), holders(t, clients, config)) })
	if diff := cmp.Diff([]string{"cluster3"}, holders(t, clients, svc)); diff != "" {
		t.Errorf("the Service's copies (-want +got):\n%s", diff)
	}
}

// memberImage reads the image of the first container of the member
// Deployment shop/api in cluster, and its label tier.
func memberImage(t *testing.T, c client.Client) string {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "api"}, d); err != nil {
		return err.Error()
	}
	return d.Spec.Template.Spec.Containers[0].Image + " tier=" + d.Labels["tier"]
}

func TestOverridesChangeTheMemberObjectsOfTheirClusters(t *testing.T) {
	mgmt, clients := setup(t, 2)
	ctx := t.Context()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop"}}
	d.Spec.Replicas = ptr.To[int32](2)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}
	d.Spec.Template.Labels = map[string]string{"app": "api"}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "api", Image: "registry.k8s.io/pause:3.10"}}
	pp := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop"}}
	pp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}}
	// One replica in each cluster.
	pp.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit, NumberOfLocations: ptr.To[int32](2)}
	pp.Spec.Overrides = []multiclusterv1alpha1.OverrideRule{{
		Name:           "eu-registry",
		TargetClusters: &multiclusterv1alpha1.ClusterTarget{Names: []multiclusterv1alpha1.ClusterName{"cluster2"}},
		Image:          &multiclusterv1alpha1.ImageOverride{Registry: "registry.eu.example.com"},
		Labels:         map[string]string{"tier": "eu"},
	}}
	for _, obj := range []client.Object{d, pp} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the EU registry in cluster2 only", func() string {
		return cmp.Diff("registry.k8s.io/pause:3.10 tier=", memberImage(t, clients["cluster1"])) +
			cmp.Diff("registry.eu.example.com/pause:3.10 tier=eu", memberImage(t, clients["cluster2"]))
	})
	eventually(t, "the placement says which rule touched which cluster", func() string {
		rp := &multiclusterv1alpha1.ResourcePlacement{}
		if err := mgmt.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "deployment.apps-api"}, rp); err != nil {
			return err.Error()
		}
		return cmp.Diff([]multiclusterv1alpha1.AppliedOverrides{{Cluster: "cluster2", Rules: []string{"eu-registry"}}}, rp.Status.Overrides)
	})

	// A rule that does not apply is reported, naming its field, and the
	// members keep what they run.
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(pp), pp); err != nil {
		t.Fatal(err)
	}
	pp.Spec.Overrides[0].Image.Tag = "3.9"
	pp.Spec.Overrides = append(pp.Spec.Overrides, multiclusterv1alpha1.OverrideRule{Name: "bad", JSONPatch: []multiclusterv1alpha1.JSONPatchOperation{
		{Op: "replace", Path: "/spec/nope", Value: &runtime.RawExtension{Raw: []byte(`1`)}},
	}})
	if err := mgmt.Update(ctx, pp); err != nil {
		t.Fatal(err)
	}
	eventually(t, "OverrideFailed naming the rule's field", func() string {
		got := condition(t, mgmt, "deployment.apps-api", multiclusterv1alpha1.ConditionPropagated)
		if !strings.HasPrefix(got, "False OverrideFailed") || !strings.Contains(got, "spec.overrides[1].jsonPatch[0]: replace /spec/nope does not apply to Deployment api") {
			return got
		}
		return ""
	})
	if diff := cmp.Diff("registry.eu.example.com/pause:3.10 tier=eu", memberImage(t, clients["cluster2"])); diff != "" {
		t.Errorf("cluster2's Deployment changed though a rule failed (-want +got):\n%s", diff)
	}
}

// members sums the replicas of the member copies of obj (a StatefulSet or
// ReplicaSet) and lists who holds them.
func memberReplicas(t *testing.T, clients map[string]client.Client, obj client.Object) (int32, map[string]int32) {
	t.Helper()
	by := map[string]int32{}
	var sum int32
	for _, name := range holders(t, clients, obj) {
		o := obj.DeepCopyObject().(client.Object)
		if err := clients[name].Get(t.Context(), client.ObjectKeyFromObject(obj), o); err != nil {
			t.Fatal(err)
		}
		var n int32
		switch m := o.(type) {
		case *appsv1.StatefulSet:
			n = ptr.Deref(m.Spec.Replicas, 1)
		case *appsv1.ReplicaSet:
			n = ptr.Deref(m.Spec.Replicas, 1)
		}
		by[name] = n
		sum += n
	}
	return sum, by
}

func TestStatefulSetsAndReplicaSetsAreDividedLikeDeployments(t *testing.T) {
	mgmt, clients := setup(t, 3)
	ctx := t.Context()
	template := func(app string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
		}
	}
	db := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop"}, Spec: appsv1.StatefulSetSpec{
		Replicas: ptr.To[int32](6), ServiceName: "db", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		Template: template("db"),
		VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}},
	}}
	cache := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: "shop"}, Spec: appsv1.ReplicaSetSpec{
		Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}, Template: template("cache"),
	}}
	pp := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "shop"}}
	pp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "StatefulSet"}, {APIVersion: "apps/v1", Kind: "ReplicaSet"}}
	pp.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit, Bursting: &multiclusterv1alpha1.Bursting{Enabled: true}}
	for _, obj := range []client.Object{db, cache, pp} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	// Six 1-CPU replicas over three 4-CPU members: no member can hold
	// them all, and every replica has a member.
	var by map[string]int32
	eventually(t, "the StatefulSet's 6 replicas divided", func() string {
		var sum int32
		sum, by = memberReplicas(t, clients, db)
		if sum != 6 || len(by) < 2 {
			return fmt.Sprintf("member StatefulSets %v; placement: %s; %s", by, condition(t, mgmt, "statefulset.apps-db", multiclusterv1alpha1.ConditionPlaced),
				condition(t, mgmt, "statefulset.apps-db", multiclusterv1alpha1.ConditionPropagated))
		}
		return ""
	})
	eventually(t, "the ReplicaSet's 2 replicas divided", func() string {
		if sum, by := memberReplicas(t, clients, cache); sum != 2 {
			return fmt.Sprintf("member ReplicaSets %v", by)
		}
		return ""
	})
	// A member's copy is the template, unchanged but for its share and
	// Meridian's labels (on its pods too).
	for name := range by {
		got := &appsv1.StatefulSet{}
		if err := clients[name].Get(ctx, client.ObjectKeyFromObject(db), got); err != nil {
			t.Fatal(err)
		}
		if got.Spec.ServiceName != "db" || len(got.Spec.VolumeClaimTemplates) != 1 || got.Spec.Template.Labels[multiclusterv1alpha1.LabelOwnerKind] != "ResourcePlacement" {
			t.Errorf("%s: member StatefulSet serviceName %q, %d claim templates, pod labels %v; want the template's, with Meridian's owner labels",
				name, got.Spec.ServiceName, len(got.Spec.VolumeClaimTemplates), got.Spec.Template.Labels)
		}
		// The member's StatefulSet controller (none runs here) reports
		// its replicas ready and updated.
		n := ptr.Deref(got.Spec.Replicas, 1)
		got.Status = appsv1.StatefulSetStatus{ObservedGeneration: got.Generation, Replicas: n, ReadyReplicas: n, AvailableReplicas: n, UpdatedReplicas: n, CurrentReplicas: n}
		if err := clients[name].Status().Update(ctx, got); err != nil {
			t.Fatal(err)
		}
	}
	// The template's status sums the members' as kubectl rollout status
	// reads it: generation observed, every replica ready and updated, the
	// current revision the update revision.
	eventually(t, "the StatefulSet's status sums its members", func() string {
		tpl := &appsv1.StatefulSet{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(db), tpl); err != nil {
			return err.Error()
		}
		st := tpl.Status
		got := fmt.Sprintf("observed %d of %d, replicas %d, ready %d, updated %d, revision current %q update %q",
			st.ObservedGeneration, tpl.Generation, st.Replicas, st.ReadyReplicas, st.UpdatedReplicas, st.CurrentRevision, st.UpdateRevision)
		return cmp.Diff(`observed 1 of 1, replicas 6, ready 6, updated 6, revision current "db-1" update "db-1"`, got)
	})

	// Scaled down with a new image, the members' shares follow, and the
	// rollout is not done until the members report the new template
	// running; deleted, the copies go.
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(db), db); err != nil {
		t.Fatal(err)
	}
	db.Spec.Replicas = ptr.To[int32](2)
	db.Spec.Template.Spec.Containers[0].Image = "registry.k8s.io/pause:3.10.1"
	if err := mgmt.Update(ctx, db); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the StatefulSet scaled to 2", func() string {
		if sum, by := memberReplicas(t, clients, db); sum != 2 {
			return fmt.Sprintf("member StatefulSets %v", by)
		}
		return ""
	})
	eventually(t, "the rollout of generation 2 not done until the members report it", func() string {
		tpl := &appsv1.StatefulSet{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(db), tpl); err != nil {
			return err.Error()
		}
		if tpl.Status.UpdateRevision != "db-2" || tpl.Status.CurrentRevision == "db-2" {
			return fmt.Sprintf("generation %d: revision current %q update %q", tpl.Generation, tpl.Status.CurrentRevision, tpl.Status.UpdateRevision)
		}
		return ""
	})
	if err := mgmt.Delete(ctx, db); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the StatefulSet's copies removed", func() string { return cmp.Diff([]string(nil), holders(t, clients, db)) })
	if sum, by := memberReplicas(t, clients, cache); sum != 2 {
		t.Errorf("member ReplicaSets %v after the StatefulSet's deletion; want 2 replicas still", by)
	}
}

func TestJobsAreDividedLikeMultiClusterJobs(t *testing.T) {
	mgmt, clients := setup(t, 3)
	ctx := t.Context()
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "report", Namespace: "shop"}, Spec: batchv1.JobSpec{
		Parallelism: ptr.To[int32](6), Completions: ptr.To[int32](12), BackoffLimit: ptr.To[int32](2),
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "report"}}, Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
		}},
	}}
	indexed := job.DeepCopy()
	indexed.Name, indexed.Spec.CompletionMode = "indexed", ptr.To(batchv1.IndexedCompletion)
	// A suspended Job (as Kueue makes them) waits, holding no room.
	queued := job.DeepCopy()
	queued.Name, queued.Spec.Suspend, queued.Spec.Parallelism, queued.Spec.Completions = "queued", ptr.To(true), ptr.To[int32](1), ptr.To[int32](1)
	pp := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "batch", Namespace: "shop"}}
	pp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{{APIVersion: "batch/v1", Kind: "Job"}}
	pp.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit, Bursting: &multiclusterv1alpha1.Bursting{Enabled: true}}
	for _, obj := range []client.Object{job, indexed, queued, pp} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	// Six 1-CPU parallel pods over three 4-CPU members: divided, with the
	// twelve completions in proportion.
	shares := func() (parallel, completions int32, by map[string]int32) {
		by = map[string]int32{}
		for _, name := range holders(t, clients, job) {
			j := &batchv1.Job{}
			if err := clients[name].Get(ctx, client.ObjectKeyFromObject(job), j); err != nil {
				t.Fatal(err)
			}
			by[name] = ptr.Deref(j.Spec.Parallelism, 1)
			parallel += by[name]
			completions += ptr.Deref(j.Spec.Completions, 0)
		}
		return parallel, completions, by
	}
	eventually(t, "the Job's 6 parallel pods and 12 completions divided", func() string {
		if p, c, by := shares(); p != 6 || c != 12 || len(by) < 2 {
			return fmt.Sprintf("member Jobs %v with %d completions; placement: %s", by, c, condition(t, mgmt, "job.batch-report", multiclusterv1alpha1.ConditionPlaced))
		}
		return ""
	})
	eventually(t, "the Indexed Job refused, naming the field", func() string {
		if got := condition(t, mgmt, "job.batch-indexed", multiclusterv1alpha1.ConditionPlaced); !strings.HasPrefix(got, "False InvalidSpec: spec.completionMode: ") {
			return got
		}
		return ""
	})
	if h := holders(t, clients, indexed); len(h) > 0 {
		t.Errorf("the Indexed Job was written to %v; want nowhere", h)
	}
	eventually(t, "the suspended Job waiting", func() string {
		return cmp.Diff("False Suspended: spec.suspend is true: the Job is placed once it is false", condition(t, mgmt, "job.batch-queued", multiclusterv1alpha1.ConditionPlaced))
	})
	if h := holders(t, clients, queued); len(h) > 0 {
		t.Errorf("the suspended Job was written to %v; want nowhere", h)
	}
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(queued), queued); err != nil {
		t.Fatal(err)
	}
	queued.Spec.Suspend = ptr.To(false)
	if err := mgmt.Update(ctx, queued); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the resumed Job placed", func() string {
		if h := holders(t, clients, queued); len(h) != 1 {
			return fmt.Sprintf("member Jobs in %v", h)
		}
		return ""
	})
	// Each member's Job is the template's, with a selector its own API
	// server generated; its controller (none runs here) reports it
	// complete.
	_, _, by := shares()
	for name := range by {
		j := &batchv1.Job{}
		if err := clients[name].Get(ctx, client.ObjectKeyFromObject(job), j); err != nil {
			t.Fatal(err)
		}
		if j.Spec.Selector == nil || j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] != string(j.UID) || ptr.Deref(j.Spec.BackoffLimit, 0) != 2 ||
			j.Spec.Template.Labels[multiclusterv1alpha1.LabelOwnerKind] != "ResourcePlacement" {
			t.Errorf("%s: member Job selector %v, backoffLimit %d, pod labels %v; want its own selector, the template's backoffLimit, Meridian's owner labels",
				name, j.Spec.Selector, ptr.Deref(j.Spec.BackoffLimit, 0), j.Spec.Template.Labels)
		}
		start := metav1.NewTime(time.Now().Add(-time.Minute).Truncate(time.Second))
		end := metav1.NewTime(start.Add(30 * time.Second))
		j.Status = batchv1.JobStatus{StartTime: &start, CompletionTime: &end, Succeeded: ptr.Deref(j.Spec.Completions, 1), Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: end},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: end},
		}}
		if err := clients[name].Status().Update(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	// The template's status sums the members': complete, as kubectl wait
	// --for=condition=complete reads it.
	eventually(t, "the Job complete on the management cluster", func() string {
		tpl := &batchv1.Job{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(job), tpl); err != nil {
			return err.Error()
		}
		var conds []string
		for _, c := range tpl.Status.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s", c.Type, c.Status))
		}
		got := fmt.Sprintf("succeeded %d, active %d, started %v, completed %v, %v", tpl.Status.Succeeded, tpl.Status.Active,
			tpl.Status.StartTime != nil, tpl.Status.CompletionTime != nil, conds)
		return cmp.Diff("succeeded 12, active 0, started true, completed true, [SuccessCriteriaMet=True Complete=True]", got)
	})
	// Deleted, the member Jobs go.
	if err := mgmt.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the member Jobs removed", func() string { return cmp.Diff([]string(nil), holders(t, clients, job)) })
}

func TestDaemonSetAndCronJobStatusSumTheirCopies(t *testing.T) {
	mgmt, clients := setup(t, 2)
	ctx := t.Context()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "shop"}, Spec: appsv1.DaemonSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}}},
	}}
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "shop"}, Spec: batchv1.CronJobSpec{Schedule: "0 2 * * *",
		JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}}}}}}}
	pp := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "agents", Namespace: "shop"}}
	pp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "DaemonSet"}, {APIVersion: "batch/v1", Kind: "CronJob"}}
	pp.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit}
	for _, obj := range []client.Object{ds, cj, pp} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the DaemonSet and the CronJob in both members", func() string {
		return cmp.Diff([]string{"cluster1", "cluster2"}, holders(t, clients, ds)) + cmp.Diff([]string{"cluster1", "cluster2"}, holders(t, clients, cj))
	})
	// Each member's CronJob controller (none runs here) records its last
	// run: the template shows the latest.
	earlier, later := metav1.NewTime(time.Now().Add(-2*time.Hour).Truncate(time.Second)), metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	for name, at := range map[string]metav1.Time{"cluster1": earlier, "cluster2": later} {
		m := &batchv1.CronJob{}
		if err := clients[name].Get(ctx, client.ObjectKeyFromObject(cj), m); err != nil {
			t.Fatal(err)
		}
		m.Status.LastScheduleTime, m.Status.LastSuccessfulTime = &at, &at
		if err := clients[name].Status().Update(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the CronJob's status the latest of its copies", func() string {
		tpl := &batchv1.CronJob{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(cj), tpl); err != nil {
			return err.Error()
		}
		if st := tpl.Status; st.LastScheduleTime == nil || !st.LastScheduleTime.Equal(&later) || st.LastSuccessfulTime == nil || !st.LastSuccessfulTime.Equal(&later) {
			return fmt.Sprintf("last schedule %v, last success %v; want %v", st.LastScheduleTime, st.LastSuccessfulTime, later)
		}
		return ""
	})
	// Each member's DaemonSet controller (none runs here) reports its
	// node's pod ready.
	for _, name := range []string{"cluster1", "cluster2"} {
		m := &appsv1.DaemonSet{}
		if err := clients[name].Get(ctx, client.ObjectKeyFromObject(ds), m); err != nil {
			t.Fatal(err)
		}
		m.Status = appsv1.DaemonSetStatus{ObservedGeneration: m.Generation, CurrentNumberScheduled: 1, DesiredNumberScheduled: 1, NumberReady: 1,
			UpdatedNumberScheduled: 1, NumberAvailable: 1}
		if err := clients[name].Status().Update(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the template's status sums its copies", func() string {
		tpl := &appsv1.DaemonSet{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(ds), tpl); err != nil {
			return err.Error()
		}
		st := tpl.Status
		return cmp.Diff("observed 1 of 1, desired 2, updated 2, ready 2, available 2", fmt.Sprintf("observed %d of %d, desired %d, updated %d, ready %d, available %d",
			st.ObservedGeneration, tpl.Generation, st.DesiredNumberScheduled, st.UpdatedNumberScheduled, st.NumberReady, st.NumberAvailable))
	})
}

func TestClusterScopedObjectsArePlacedByClusterPolicies(t *testing.T) {
	mgmt, clients := setup(t, 2)
	ctx := t.Context()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "shop-reader", Labels: map[string]string{"team": "shop"}},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "shop", "pod-security.kubernetes.io/enforce": "restricted"}}}
	cpp := &multiclusterv1alpha1.ClusterPropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "shop-cluster"}}
	cpp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "shop"}}},
		{APIVersion: "v1", Kind: "Namespace", Name: "team-a"},
	}
	cpp.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.WorstFit}
	// A namespaced policy cannot select a cluster-scoped kind.
	pp := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "roles", Namespace: "shop"}}
	pp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}}
	for _, obj := range []client.Object{role, ns, cpp, pp} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the ClusterRole and the Namespace in both members", func() string {
		return cmp.Diff([]string{"cluster1", "cluster2"}, holders(t, clients, role)) + cmp.Diff([]string{"cluster1", "cluster2"}, holders(t, clients, ns))
	})
	got := &corev1.Namespace{}
	if err := clients["cluster1"].Get(ctx, client.ObjectKeyFromObject(ns), got); err != nil {
		t.Fatal(err)
	}
	if got.Labels["pod-security.kubernetes.io/enforce"] != "restricted" || got.Labels[multiclusterv1alpha1.LabelOwnerKind] != "ResourcePlacement" {
		t.Errorf("member Namespace labels %v; want the template's and Meridian's owner labels", got.Labels)
	}
	// Their placements are in the controller's namespace.
	rp := &multiclusterv1alpha1.ResourcePlacement{}
	if err := mgmt.Get(ctx, client.ObjectKey{Namespace: "meridian-system", Name: "clusterrole.rbac.authorization.k8s.io-shop-reader"}, rp); err != nil {
		t.Errorf("the ClusterRole's placement in meridian-system: %v", err)
	}
	eventually(t, "the namespaced policy refused, naming its selector", func() string {
		p := &multiclusterv1alpha1.PropagationPolicy{}
		if err := mgmt.Get(ctx, client.ObjectKeyFromObject(pp), p); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(p.Status.Conditions, multiclusterv1alpha1.ConditionReady)
		if c == nil || c.Reason != multiclusterv1alpha1.ReasonNotPlaceable ||
			!strings.Contains(c.Message, "spec.resourceSelectors[0]: ClusterRole is cluster-scoped; select it with a ClusterPropagationPolicy") {
			return fmt.Sprintf("Ready condition %+v", c)
		}
		return ""
	})

	// When the Namespace's policy lets go of it, the members keep it (with
	// whatever it holds), disowned; the ClusterRole deleted, its copies go.
	if err := mgmt.Get(ctx, client.ObjectKeyFromObject(cpp), cpp); err != nil {
		t.Fatal(err)
	}
	cpp.Spec.ResourceSelectors = cpp.Spec.ResourceSelectors[:1]
	if err := mgmt.Update(ctx, cpp); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the members' Namespaces disowned, not deleted", func() string {
		for _, name := range []string{"cluster1", "cluster2"} {
			got := &corev1.Namespace{}
			if err := clients[name].Get(ctx, client.ObjectKeyFromObject(ns), got); err != nil {
				return name + ": " + err.Error()
			}
			if !got.DeletionTimestamp.IsZero() || got.Labels[multiclusterv1alpha1.LabelOwnerName] != "" {
				return fmt.Sprintf("%s: Namespace deleting %v, labels %v", name, !got.DeletionTimestamp.IsZero(), got.Labels)
			}
		}
		return ""
	})
	if err := mgmt.Delete(ctx, role); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ClusterRole's copies removed", func() string { return cmp.Diff([]string(nil), holders(t, clients, role)) })
}
