package e2e_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/join"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// TestJoinDrainUnjoinOnTestbed starts a member beside a one-member testbed
// without registering it, joins it with meridian join's code, places a
// workload there, and takes it away with an unjoin that drains it first:
// the replicas move to the other member and nothing join or the controller
// made is left in either cluster.
func TestJoinDrainUnjoinOnTestbed(t *testing.T) {
	profile := &testbed.Profile{Name: "join", Description: "one member; a second joins", Clusters: []testbed.ClusterProfile{{
		Name: "home", Region: "eu-west", Nodes: []testbed.NodePool{{Count: 2, CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi")}},
	}}}
	w := start(t, profile)
	ctx := t.Context()
	edge, err := testbed.AddCluster(ctx, w.dir, testbed.ClusterSpec{Name: "edge", Region: "eu-south"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testbed.SetNodes(ctx, w.dir, "edge", testbed.NodeSize{CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi")}, 2, nil); err != nil {
		t.Fatal(err)
	}
	edgeClient, err := edge.Client()
	if err != nil {
		t.Fatal(err)
	}
	management := w.tb.Management().Config

	var out bytes.Buffer
	if err := join.Join(ctx, management, edge.Config, join.Options{Name: "edge", Region: "eu-south"}, &out); err != nil {
		t.Fatalf("join: %v\n%s", err, out.String())
	}
	w.waitFor(t, time.Minute, "edge Ready", func() string {
		c := &multiclusterv1alpha1.Cluster{}
		if err := w.mgmt.Get(ctx, client.ObjectKey{Name: "edge"}, c); err != nil {
			return err.Error()
		}
		if !isTrue(c.Status.Conditions, multiclusterv1alpha1.ClusterReady) {
			return fmt.Sprintf("%+v", c.Status.Conditions)
		}
		return ""
	})

	w.namespace(t, "shop")
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	mcd.Spec.Replicas = ptr.To[int32](4)
	mcd.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	mcd.Spec.Template.Labels = map[string]string{"app": "web"}
	mcd.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}
	mcd.Spec.Placement.Policy = multiclusterv1alpha1.ClusterAffinity
	mcd.Spec.Placement.Locations = []multiclusterv1alpha1.ClusterName{"edge"}
	mcd.Spec.Placement.Substitution = &multiclusterv1alpha1.Substitution{Enabled: true}
	if err := w.mgmt.Create(ctx, mcd); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, 2*time.Minute, "4 replicas Running in the joined member", func() string { return runningPods(t, edgeClient, "edge", "web", 4) })

	out.Reset()
	err = join.Unjoin(ctx, management, edge.Config, join.UnjoinOptions{Name: "edge"}, &out)
	if !errors.Is(err, join.ErrStillRunning) || !strings.Contains(err.Error(), "Deployment shop/web") {
		t.Fatalf("unjoin of a member running a workload = %v, want %v naming Deployment shop/web", err, join.ErrStillRunning)
	}
	out.Reset()
	if err := join.Unjoin(ctx, management, edge.Config, join.UnjoinOptions{Name: "edge", Drain: true, Timeout: 3 * time.Minute}, &out); err != nil {
		t.Fatalf("unjoin --drain: %v\n%s", err, out.String())
	}
	t.Logf("unjoin --drain:\n%s", out.String())
	w.waitFor(t, 2*time.Minute, "4 replicas Running in home", func() string { return runningPods(t, w.members["home"], "home", "web", 4) })

	// Nothing join or the controller made is left: in the member no object
	// of Meridian's or join's (the namespace join made is gone once
	// kube-controller-manager emptied it), in the management cluster
	// neither the Cluster nor its Secret.
	w.waitFor(t, time.Minute, "nothing left", func() string {
		var left []string
		for _, list := range []client.ObjectList{&appsv1.DeploymentList{}, &corev1.ServiceAccountList{}, &rbacv1.ClusterRoleList{}, &rbacv1.ClusterRoleBindingList{}, &rbacv1.RoleList{}, &rbacv1.RoleBindingList{}, &corev1.NamespaceList{}, &corev1.SecretList{}, &corev1.ConfigMapList{}} {
			for _, managedBy := range []string{multiclusterv1alpha1.ManagedByMeridian, multiclusterv1alpha1.ManagedByJoin} {
				if err := edgeClient.List(ctx, list, client.MatchingLabels{multiclusterv1alpha1.LabelManagedBy: managedBy}); err != nil {
					return err.Error()
				}
				items, _ := apimeta.ExtractList(list)
				for _, o := range items {
					left = append(left, fmt.Sprintf("member %T %s", o, client.ObjectKeyFromObject(o.(client.Object))))
				}
			}
		}
		if err := edgeClient.Get(ctx, client.ObjectKey{Name: join.DefaultNamespace}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
			left = append(left, fmt.Sprintf("member namespace %s (%v)", join.DefaultNamespace, err))
		}
		if err := w.mgmt.Get(ctx, client.ObjectKey{Name: "edge"}, &multiclusterv1alpha1.Cluster{}); !apierrors.IsNotFound(err) {
			left = append(left, fmt.Sprintf("Cluster edge (%v)", err))
		}
		if err := w.mgmt.Get(ctx, client.ObjectKey{Namespace: join.DefaultNamespace, Name: join.SecretName("edge")}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
			left = append(left, fmt.Sprintf("Secret %s (%v)", join.SecretName("edge"), err))
		}
		return strings.Join(left, "; ")
	})
}
