package e2e_test

import (
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestPlainManifestsPlacedByPolicy applies examples/plain-manifests, an
// application's unchanged manifests and two PropagationPolicies, to the
// seed001 testbed's management cluster (which runs no workload
// controllers): the Deployment's pods run in cluster2 with the ConfigMap,
// Secret and ServiceAccount they name, the Service is in every member, the
// database's StatefulSet runs in cluster3 with the Secret it reads, and
// kubectl rollout status returns on the management cluster for both. A ConfigMap
// edit reaches the members that run the pods; a scale beyond cluster2's
// room bursts to the nearest member, where the dependencies follow and an
// override rule for its region changes the image registry; a
// delete removes the member Deployments and the dependencies, but the Secret
// the database still reads, and leaves the Service its own policy places.
func TestPlainManifestsPlacedByPolicy(t *testing.T) {
	profile, err := testbed.LoadProfile("seed001")
	if err != nil {
		t.Fatal(err)
	}
	w := start(t, profile)
	ctx := t.Context()
	dir := filepath.Join("..", "..", "examples", "plain-manifests")
	for _, file := range []string{"app.yaml", "policy.yaml"} {
		for _, obj := range testenv.ReadManifests(t, filepath.Join(dir, file)) {
			if err := w.mgmt.Create(ctx, obj); err != nil {
				t.Fatalf("%s %s: %v", obj.GetKind(), obj.GetName(), err)
			}
		}
	}
	web := client.ObjectKey{Namespace: "shop", Name: "web"}
	deps := []client.Object{
		&corev1.ConfigMap{}, &corev1.Secret{}, &corev1.ServiceAccount{},
	}
	depNames := []string{"web-config", "web-secret", "web"}
	// where lists, per member, the replicas of the member Deployment web
	// and which of its dependencies the member holds.
	where := func() string {
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(w.members)) {
			c := w.members[name]
			d := &appsv1.Deployment{}
			if err := c.Get(ctx, web, d); err == nil && d.DeletionTimestamp.IsZero() {
				fmt.Fprintf(&b, "%s: %d replicas", name, ptr.Deref(d.Spec.Replicas, 0))
			} else if !apierrors.IsNotFound(err) && err != nil {
				t.Fatal(err)
			} else {
				fmt.Fprintf(&b, "%s: -", name)
			}
			for i, obj := range deps {
				o := obj.DeepCopyObject().(client.Object)
				if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: depNames[i]}, o); err == nil && o.GetDeletionTimestamp().IsZero() {
					fmt.Fprintf(&b, " %T", obj)
				}
			}
			b.WriteString("\n")
		}
		return strings.ReplaceAll(b.String(), "*v1.", "")
	}
	running := func(cluster string, want int) string { return runningPods(t, w.members[cluster], cluster, "web", want) }
	w.waitFor(t, 2*time.Minute, "web's 4 replicas Running in cluster2 with their ConfigMap, Secret and ServiceAccount", func() string {
		want := "cluster1: -\ncluster2: 4 replicas ConfigMap Secret ServiceAccount\ncluster3: - Secret\ncluster4: -\ncluster5: -\n"
		if diff := cmp.Diff(want, where()); diff != "" {
			return diff
		}
		return running("cluster2", 4)
	})
	w.waitFor(t, 2*time.Minute, "the database's pod Running in cluster3", func() string {
		return runningPods(t, w.members["cluster3"], "cluster3", "db", 1)
	})
	w.waitFor(t, time.Minute, "the Services in every member, the database's in cluster3", func() string {
		var missing []string
		for name, c := range w.members {
			if err := c.Get(ctx, web, &corev1.Service{}); err != nil {
				missing = append(missing, name)
			}
		}
		db := &corev1.Service{}
		if err := w.members["cluster3"].Get(ctx, client.ObjectKey{Namespace: "shop", Name: "db"}, db); err != nil {
			missing = append(missing, "db in cluster3")
		} else if db.Spec.ClusterIP != corev1.ClusterIPNone {
			return "the database's Service in cluster3 is not headless: clusterIP " + db.Spec.ClusterIP
		}
		if len(missing) > 0 {
			return fmt.Sprintf("missing Services: %v", missing)
		}
		return ""
	})
	rolloutStatus(t, w.tb, "deployment/web")
	rolloutStatus(t, w.tb, "statefulset/db")

	// The ConfigMap edited in the management cluster reaches cluster2.
	cm := &corev1.ConfigMap{}
	if err := w.mgmt.Get(ctx, client.ObjectKey{Namespace: "shop", Name: "web-config"}, cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["greeting"] = "bonjour"
	if err := w.mgmt.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, time.Minute, "the ConfigMap's edit in cluster2", func() string {
		got := &corev1.ConfigMap{}
		if err := w.members["cluster2"].Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
			return err.Error()
		}
		return cmp.Diff("bonjour", got.Data["greeting"])
	})

	// Scaled beyond cluster2's room (5 nodes of 2 CPU: 20 replicas of
	// 500m), the overflow bursts to the nearest member, Rennes (cluster1,
	// 2.16 ms), and the dependencies follow.
	d := &appsv1.Deployment{}
	if err := w.mgmt.Get(ctx, web, d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Replicas = ptr.To[int32](24)
	if err := w.mgmt.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, 2*time.Minute, "24 replicas: 20 in cluster2, 4 burst to cluster1 with the dependencies", func() string {
		want := "cluster1: 4 replicas ConfigMap Secret ServiceAccount\ncluster2: 20 replicas ConfigMap Secret ServiceAccount\ncluster3: - Secret\ncluster4: -\ncluster5: -\n"
		if diff := cmp.Diff(want, where()); diff != "" {
			return diff
		}
		return running("cluster1", 4) + running("cluster2", 20)
	})
	rolloutStatus(t, w.tb, "deployment/web")
	// The override rule for Rennes changed the image there only.
	for cluster, want := range map[string]string{"cluster1": "mirror.rennes.example.com/e2e-test-images/agnhost:2.53", "cluster2": "registry.k8s.io/e2e-test-images/agnhost:2.53"} {
		got := &appsv1.Deployment{}
		if err := w.members[cluster].Get(ctx, web, got); err != nil {
			t.Fatal(err)
		}
		if img := got.Spec.Template.Spec.Containers[0].Image; img != want {
			t.Errorf("image in %s: %s, want %s", cluster, img, want)
		}
	}

	// Deleted: the member Deployments and the dependencies go, but the
	// Secret the database reads; the Service, which its own policy places,
	// stays. The database deleted, its Secret goes too.
	if err := w.mgmt.Delete(ctx, d); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, 2*time.Minute, "the member Deployments and dependencies removed", func() string {
		return cmp.Diff("cluster1: -\ncluster2: -\ncluster3: - Secret\ncluster4: -\ncluster5: -\n", where())
	})
	if err := w.mgmt.Delete(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db"}}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, 2*time.Minute, "the database's StatefulSet and Secret removed", func() string {
		if err := w.members["cluster3"].Get(ctx, client.ObjectKey{Namespace: "shop", Name: "db"}, &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("StatefulSet db in cluster3: %v", err)
		}
		return cmp.Diff("cluster1: -\ncluster2: -\ncluster3: -\ncluster4: -\ncluster5: -\n", where())
	})
	for name, c := range w.members {
		if err := c.Get(ctx, web, &corev1.Service{}); err != nil {
			t.Errorf("Service web in %s after the Deployment was deleted: %v", name, err)
		}
	}
}

// rolloutStatus runs kubectl rollout status on the management cluster's
// workload shop/<what> (kind/name), as a user would, and fails if it does
// not return success.
func rolloutStatus(t *testing.T, tb *testbed.Testbed, what string) {
	t.Helper()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), kubectl, "--kubeconfig", tb.Kubeconfig, "--context", "e2e-management",
		"rollout", "status", what, "-n", "shop", "--timeout=90s")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl rollout status %s on the management cluster: %v\n%s", what, err, out)
	}
	t.Logf("kubectl rollout status %s: %s", what, strings.TrimSpace(string(out)))
}

// runningPods checks that want pods labelled app=app are Running in the
// namespace shop of a member.
func runningPods(t *testing.T, c client.Client, cluster, app string, want int) string {
	t.Helper()
	var pods corev1.PodList
	if err := c.List(t.Context(), &pods, client.InNamespace("shop"), client.MatchingLabels{"app": app}); err != nil {
		return err.Error()
	}
	n := 0
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
			n++
		}
	}
	if n != want {
		return fmt.Sprintf("%d %s pods Running in %s, want %d", n, app, cluster, want)
	}
	return ""
}
