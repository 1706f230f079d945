package join_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcscrd "sigs.k8s.io/mcs-api/config/crd"

	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/join"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestMemberRoleHasNoWildcards fails on a rule of the generated member
// role that grants by wildcard.
func TestMemberRoleHasNoWildcards(t *testing.T) {
	role, err := join.MemberRole(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range role.Rules {
		for _, field := range [][]string{r.APIGroups, r.Resources, r.Verbs, r.ResourceNames, r.NonResourceURLs} {
			if slices.Contains(field, rbacv1.ResourceAll) {
				t.Errorf("rules[%d] %+v grants by wildcard", i, r)
			}
		}
	}
}

// atom is one right: a verb on a resource of a group.
type atom struct{ verb, group, resource string }

func (a atom) String() string { return fmt.Sprintf("%s %s.%s", a.verb, a.resource, a.group) }

// atoms expands rules into single rights.
func atoms(rules []rbacv1.PolicyRule) []atom {
	var out []atom
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, atom{v, g, res})
				}
			}
		}
	}
	return out
}

// TestMemberRoleIsWhatTheControllerDoes joins a member whose API server
// keeps an audit log, runs every controller on every kind of work it does
// in a member (exercise.yaml) from placement to removal, renews the token
// once, and reads the log: no request of the controller's ServiceAccount
// was refused, and every right the generated role and the token Role grant
// was used by a request (a server-side apply that created its object uses
// create), so removing any one of them makes such a request fail.
//
// The member does not stream lists (its WatchList feature is off), as API
// servers before streaming lists were on by default: there an informer
// lists before it watches. A member that streams them serves an informer
// with a watch alone, and never sees the list the role grants for it.
func TestMemberRoleIsWhatTheControllerDoes(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	member, audit := testenv.StartAuditedCluster(t, "audited-member", "WatchList=false")
	member.AddNode(t, "edge-node", "8", "32Gi")
	testenv.InstallCRD(t, member.Client, mcscrd.ServiceExportCRD)
	podMetricsCRD, err := os.ReadFile("../controller/multiclusterhpa/testdata/podmetrics-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	testenv.InstallCRD(t, member.Client, podMetricsCRD)
	env.Management.CreateNamespaces(t, "shop")

	joinEdge(t, env, member.Config, join.Options{Name: "edge", TokenTTL: 10 * time.Minute})
	startController(t, env, controller.Options{
		AutoscaleInterval:   500 * time.Millisecond,
		OrphanSweepInterval: 500 * time.Millisecond,
		// One renewal within the test's first minute.
		TokenRenewBefore: 10*time.Minute - 20*time.Second,
	})
	eventually(t, "the joined member Ready", func() string { return clusterReady(t, env.Management.Client, "edge") })

	objs := testenv.ReadManifests(t, "testdata/exercise.yaml")
	for _, o := range objs {
		if err := env.Management.Client.Create(t.Context(), o); err != nil {
			t.Fatalf("failed to create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	want := []string{
		"CronJob shop/nightly", "DaemonSet shop/agent", "Deployment shop/web", "Job shop/batch", "ReplicaSet shop/cache",
		"Service shop/db", "Service shop/web", "ServiceExport shop/web", "StatefulSet shop/db",
		"ConfigMap shop/web-config", "PersistentVolumeClaim shop/web-data", "Secret shop/web-secret", "ServiceAccount shop/web",
	}
	slices.Sort(want)
	eventually(t, "everything placed in the member", func() string {
		got := meridianObjects(t, member.Client)
		if diff := cmp.Diff(want, got); diff != "" {
			return "(-want +got)\n" + diff
		}
		if err := member.Client.Get(t.Context(), client.ObjectKey{Name: "team-a"}, &corev1.Namespace{}); err != nil {
			return err.Error()
		}
		return ""
	})
	// A Running pod of the deployment and its metrics, for the autoscaler
	// to read.
	runWebPod(t, member.Client)
	eventually(t, "the autoscaler read the member's pod metrics", func() string {
		for _, e := range audit.Events(t) {
			if e.Group == "metrics.k8s.io" && e.Verb == "list" && strings.HasPrefix(e.User, "system:serviceaccount:") {
				return ""
			}
		}
		return "no list of metrics.k8s.io pods yet"
	})

	// Everything goes: the controller removes what it made.
	for _, o := range slices.Backward(objs) {
		if err := env.Management.Client.Delete(t.Context(), o); client.IgnoreNotFound(err) != nil {
			t.Fatalf("failed to delete %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	eventually(t, "the member emptied of Meridian's objects", func() string {
		if got := meridianObjects(t, member.Client); len(got) > 0 {
			return fmt.Sprintf("left: %v", got)
		}
		return ""
	})
	eventually(t, "the token renewed", func() string {
		for _, e := range audit.Events(t) {
			if e.Subresource == "token" && strings.HasPrefix(e.User, "system:serviceaccount:") {
				return ""
			}
		}
		return "no TokenRequest of the ServiceAccount yet"
	})

	sa := "system:serviceaccount:" + join.DefaultNamespace + ":" + join.ServiceAccountName
	used := map[atom]bool{}
	var refused []string
	for _, e := range audit.Events(t) {
		if e.User != sa || e.Resource == "" {
			continue
		}
		if e.Code == 403 {
			refused = append(refused, e.String())
		}
		res := e.Resource
		if e.Subresource != "" {
			res += "/" + e.Subresource
		}
		used[atom{e.Verb, e.Group, res}] = true
		if e.Verb == "patch" && e.Code == 201 {
			used[atom{"create", e.Group, res}] = true
		}
	}
	if len(refused) > 0 {
		t.Errorf("the member refused the controller %d requests:\n%s", len(refused), strings.Join(slices.Compact(slices.Sorted(slices.Values(refused))), "\n"))
	}
	role, err := join.MemberRole(nil)
	if err != nil {
		t.Fatal(err)
	}
	tokenRole := &rbacv1.Role{}
	if err := member.Client.Get(t.Context(), client.ObjectKey{Namespace: join.DefaultNamespace, Name: join.TokenRoleName}, tokenRole); err != nil {
		t.Fatal(err)
	}
	for _, a := range append(atoms(role.Rules), atoms(tokenRole.Rules)...) {
		if !used[a] {
			t.Errorf("the role grants %s, which the controller never used", a)
		}
	}
}

// TestMemberRoleWithoutARuleFails removes one right the member role
// claims (create deployments) and shows the controller then fails to
// place, saying why.
func TestMemberRoleWithoutARuleFails(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	member := env.Members[0]
	member.AddNode(t, "edge-node", "4", "16Gi")
	env.Management.CreateNamespaces(t, "shop")
	joinEdge(t, env, member.Config, join.Options{Name: "edge"})
	role := &rbacv1.ClusterRole{}
	if err := member.Client.Get(t.Context(), client.ObjectKey{Name: join.RoleName}, role); err != nil {
		t.Fatal(err)
	}
	for i, r := range role.Rules {
		if slices.Contains(r.Resources, "deployments") {
			role.Rules[i].Verbs = slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return v == "create" })
		}
	}
	if err := member.Client.Update(t.Context(), role); err != nil {
		t.Fatal(err)
	}
	startController(t, env, controller.Options{})
	eventually(t, "the joined member Ready", func() string { return clusterReady(t, env.Management.Client, "edge") })
	for _, o := range testenv.ReadManifests(t, "testdata/exercise.yaml") {
		if o.GetKind() != "MultiClusterDeployment" {
			continue
		}
		unstructured.RemoveNestedField(o.Object, "spec", "template", "spec", "volumes")
		unstructured.RemoveNestedField(o.Object, "spec", "template", "spec", "serviceAccountName")
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		delete(containers[0].(map[string]any), "volumeMounts")
		if err := unstructured.SetNestedSlice(o.Object, containers, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
		if err := env.Management.Client.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		eventually(t, "Propagated False, forbidden", func() string {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(o.GroupVersionKind())
			if err := env.Management.Client.Get(t.Context(), client.ObjectKeyFromObject(o), got); err != nil {
				return err.Error()
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, c := range conds {
				c := c.(map[string]any)
				if c["type"] == "Propagated" && c["status"] == "False" && strings.Contains(fmt.Sprint(c["message"]), `cannot create resource "deployments"`) {
					return ""
				}
			}
			return fmt.Sprintf("conditions %v", conds)
		})
	}
}

// meridianObjects names what Meridian made in the member.
func meridianObjects(t *testing.T, c client.Client) []string {
	t.Helper()
	var out []string
	for _, list := range propagation.MemberLists() {
		err := c.List(t.Context(), list, client.MatchingLabels{"app.kubernetes.io/managed-by": "meridian"})
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		kind := strings.TrimSuffix(list.GetObjectKind().GroupVersionKind().Kind, "List")
		_ = meta.EachListItem(list, func(o runtime.Object) error {
			if obj := o.(client.Object); obj.GetDeletionTimestamp() == nil {
				out = append(out, kind+" "+obj.GetNamespace()+"/"+obj.GetName())
			}
			return nil
		})
	}
	slices.Sort(out)
	return out
}

// runWebPod runs a pod of the web deployment in the member (its
// template's labels, which say whose it is), with the PodMetrics
// metrics-server would report for it.
func runWebPod(t *testing.T, c client.Client) {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "shop", Name: "web"}, d); err != nil {
		t.Fatal(err)
	}
	labels := d.Spec.Template.Labels
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "shop", Labels: labels}}
	p.Spec.NodeName = "edge-node"
	p.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	if err := c.Status().Update(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	pm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
		"metadata":  map[string]any{"name": "web-0", "namespace": "shop"},
		"timestamp": time.Now().UTC().Format(time.RFC3339), "window": "15s",
		"containers": []any{map[string]any{"name": "web", "usage": map[string]any{"cpu": "50m", "memory": "10Mi"}}},
	}}
	pm.SetLabels(labels)
	if err := c.Create(t.Context(), pm); err != nil {
		t.Fatal(err)
	}
}
