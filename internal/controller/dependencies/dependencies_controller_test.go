package dependencies_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// web is a MultiClusterDeployment whose pods mount the ConfigMap
// web-config, read the Secret web-secret, run as the ServiceAccount web,
// and (when extra is set) read the ConfigMap extra.
func web(location, extra string) *multiclusterv1alpha1.MultiClusterDeployment {
	d := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}
	d.Spec.Replicas = ptr.To[int32](2)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	d.Spec.Template.Spec = podSpec("web", "web-config", "web-secret", extra)
	d.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{multiclusterv1alpha1.ClusterName(location)}
	return d
}

func podSpec(sa, config, secret, extra string) corev1.PodSpec {
	spec := corev1.PodSpec{
		ServiceAccountName: sa,
		Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: config}}}}},
		Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
			EnvFrom:   []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: secret}}}},
		}},
	}
	if extra != "" {
		spec.Containers[0].Env = []corev1.EnvVar{{Name: "EXTRA", ValueFrom: &corev1.EnvVarSource{
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: extra}, Key: "x"}}}}
	}
	return spec
}

// copies lists, per member, the copies Meridian made in shop, as
// Kind/name, and the objects named in others whether Meridian made them or
// not.
func copies(t *testing.T, clients map[string]client.Client) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	sel := client.MatchingLabels{multiclusterv1alpha1.LabelDependency: "true"}
	for _, name := range slices.Sorted(maps.Keys(clients)) {
		c := clients[name]
		var cms corev1.ConfigMapList
		var secrets corev1.SecretList
		var sas corev1.ServiceAccountList
		for _, l := range []client.ObjectList{&cms, &secrets, &sas} {
			if err := c.List(t.Context(), l, client.InNamespace("shop"), sel); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range cms.Items {
			out[name] = append(out[name], "ConfigMap/"+o.Name)
		}
		for _, o := range secrets.Items {
			out[name] = append(out[name], "Secret/"+o.Name)
		}
		for _, o := range sas.Items {
			out[name] = append(out[name], "ServiceAccount/"+o.Name)
		}
	}
	return out
}

// warning finds a Warning event of reason on the object named in shop
// whose note contains text.
func warning(t *testing.T, mgmt client.Client, name, reason, text string) string {
	t.Helper()
	var evs eventsv1.EventList
	if err := mgmt.List(t.Context(), &evs, client.InNamespace("shop")); err != nil {
		return err.Error()
	}
	var seen []string
	for _, e := range evs.Items {
		if e.Regarding.Name == name && e.Reason == reason && strings.Contains(e.Note, text) {
			return ""
		}
		seen = append(seen, e.Reason+": "+e.Note)
	}
	return fmt.Sprintf("no %s event on %s containing %q; events: %v", reason, name, text, seen)
}

func TestDependenciesFollowTheirWorkload(t *testing.T) {
	mgmt, clients := setup(t, 3)
	ctx := t.Context()
	config := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: "shop", Labels: map[string]string{"app": "web"}},
		Data: map[string]string{"greeting": "hello"}}
	for _, obj := range []client.Object{
		config,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "web-secret", Namespace: "shop"}, StringData: map[string]string{"PASSWORD": "s3cret"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "unrelated", Namespace: "shop"}, Data: map[string]string{"a": "b"}},
		web("cluster1", ""),
	} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{"cluster1": {"ConfigMap/web-config", "Secret/web-secret", "ServiceAccount/web"}}
	eventually(t, "the dependencies of web in cluster1 only", func() string {
		if diff := cmp.Diff(want, copies(t, clients)); diff != "" {
			d := &multiclusterv1alpha1.MultiClusterDeployment{}
			_ = mgmt.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web"}, d)
			return fmt.Sprintf("%s\nweb's status: %+v", diff, d.Status)
		}
		return ""
	})
	got := &corev1.Secret{}
	if err := clients["cluster1"].Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web-secret"}, got); err != nil {
		t.Fatal(err)
	}
	if string(got.Data["PASSWORD"]) != "s3cret" {
		t.Errorf("the Secret's copy holds %q, want the management cluster's data", got.Data)
	}
	if u := got.Annotations[multiclusterv1alpha1.AnnotationUsedBy]; u != "MultiClusterDeployment/web" {
		t.Errorf("the Secret's copy is used by %q, want MultiClusterDeployment/web", u)
	}

	// An edit reaches the copy.
	config.Data["greeting"] = "bonjour"
	if err := mgmt.Update(ctx, config); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ConfigMap's edit in cluster1", func() string {
		cm := &corev1.ConfigMap{}
		if err := clients["cluster1"].Get(ctx, client.ObjectKeyFromObject(config), cm); err != nil {
			return err.Error()
		}
		return cmp.Diff(map[string]string{"greeting": "bonjour"}, cm.Data)
	})

	// A job in cluster2 shares the ConfigMap; web moves to cluster2: the
	// copies leave cluster1 and are in cluster2 once, used by both.
	job := &multiclusterv1alpha1.MultiClusterJob{ObjectMeta: metav1.ObjectMeta{Name: "etl", Namespace: "shop"}}
	job.Spec.Parallelism = ptr.To[int32](1)
	job.Spec.Completions = ptr.To[int32](1)
	job.Spec.Template.Spec = podSpec("", "web-config", "web-secret", "")
	job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	job.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{"cluster2"}
	if err := mgmt.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the job's dependencies in cluster2", func() string {
		return cmp.Diff(map[string][]string{"cluster1": want["cluster1"], "cluster2": {"ConfigMap/web-config", "Secret/web-secret"}}, copies(t, clients))
	})
	d := &multiclusterv1alpha1.MultiClusterDeployment{}
	if err := mgmt.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web"}, d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{"cluster2"}
	if err := mgmt.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "web's dependencies moved to cluster2", func() string {
		if diff := cmp.Diff(map[string][]string{"cluster2": want["cluster1"]}, copies(t, clients)); diff != "" {
			return diff
		}
		cm := &corev1.ConfigMap{}
		if err := clients["cluster2"].Get(ctx, client.ObjectKeyFromObject(config), cm); err != nil {
			return err.Error()
		}
		return cmp.Diff("MultiClusterDeployment/web,MultiClusterJob/etl", cm.Annotations[multiclusterv1alpha1.AnnotationUsedBy])
	})

	// cluster3 already has its own web-config: web moves there, the
	// member's own ConfigMap is left as it is, and web is told; a ConfigMap
	// web names that does not exist is reported too.
	own := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config", Namespace: "shop"}, Data: map[string]string{"greeting": "mine"}}
	if err := clients["cluster3"].Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}); err != nil {
		t.Fatal(err)
	}
	if err := clients["cluster3"].Create(ctx, own); err != nil {
		t.Fatal(err)
	}
	if err := mgmt.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web"}, d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{"cluster3"}
	d.Spec.Template.Spec = web("", "missing").Spec.Template.Spec
	if err := mgmt.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "web's dependencies in cluster3 but its own ConfigMap, the job's in cluster2", func() string {
		return cmp.Diff(map[string][]string{"cluster2": {"ConfigMap/web-config", "Secret/web-secret"}, "cluster3": {"Secret/web-secret", "ServiceAccount/web"}}, copies(t, clients))
	})
	eventually(t, "a DependencyConflict event on web", func() string {
		return warning(t, mgmt, "web", "DependencyConflict", "ConfigMap web-config already exists in cluster3 and was not copied by Meridian")
	})
	eventually(t, "a DependencyMissing event on web", func() string {
		return warning(t, mgmt, "web", "DependencyMissing", "ConfigMap missing, needed in cluster3 by MultiClusterDeployment/web, does not exist in namespace shop")
	})
	mine := &corev1.ConfigMap{}
	if err := clients["cluster3"].Get(ctx, client.ObjectKeyFromObject(own), mine); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(own.Data, mine.Data); diff != "" {
		t.Errorf("cluster3's own ConfigMap changed (-want +got):\n%s", diff)
	}

	// Both deleted: no copy is left anywhere, the member's own ConfigMap
	// stays.
	if err := mgmt.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := mgmt.Delete(ctx, job); err != nil {
		t.Fatal(err)
	}
	eventually(t, "no copy left", func() string { return cmp.Diff(map[string][]string{}, copies(t, clients)) })
	if err := clients["cluster3"].Get(ctx, client.ObjectKeyFromObject(own), mine); err != nil {
		t.Errorf("cluster3's own ConfigMap: %v", err)
	}
}

// A plain Deployment a PropagationPolicy places takes what its pods name
// along too; what the policy places itself (the ConfigMap here) is placed,
// not copied as a dependency.
func TestPlainDeploymentsTakeTheirDependencies(t *testing.T) {
	mgmt, clients := setup(t, 2)
	ctx := t.Context()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop"}}
	d.Spec.Replicas = ptr.To[int32](1)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}
	d.Spec.Template.Labels = map[string]string{"app": "api"}
	d.Spec.Template.Spec = podSpec("", "api-config", "api-secret", "")
	pp := &multiclusterv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop"}}
	pp.Spec.ResourceSelectors = []multiclusterv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment"}, {APIVersion: "v1", Kind: "ConfigMap", Name: "api-config"}}
	pp.Spec.Placement = multiclusterv1alpha1.Placement{Policy: multiclusterv1alpha1.ClusterAffinity, Locations: []multiclusterv1alpha1.ClusterName{"cluster2"}}
	for _, obj := range []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "api-config", Namespace: "shop"}, Data: map[string]string{"a": "b"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "api-secret", Namespace: "shop"}, StringData: map[string]string{"k": "v"}},
		d, pp,
	} {
		if err := mgmt.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the Secret copied to cluster2 as a dependency, the ConfigMap placed", func() string {
		if diff := cmp.Diff(map[string][]string{"cluster2": {"Secret/api-secret"}}, copies(t, clients)); diff != "" {
			return diff
		}
		cm := &corev1.ConfigMap{}
		return errString(clients["cluster2"].Get(ctx, client.ObjectKey{Namespace: "shop", Name: "api-config"}, cm))
	})
	if err := mgmt.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "api"}, d); err != nil {
		t.Fatal(err)
	}
	if err := mgmt.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Secret's copy gone with the Deployment", func() string { return cmp.Diff(map[string][]string{}, copies(t, clients)) })
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
