package cluster_test

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

func readyOf(t *testing.T, c client.Client, name string) (*multiclusterv1alpha1.Cluster, *metav1.Condition) {
	t.Helper()
	cl := &multiclusterv1alpha1.Cluster{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: name}, cl); err != nil {
		t.Fatal(err)
	}
	return cl, meta.FindStatusCondition(cl.Status.Conditions, multiclusterv1alpha1.ClusterReady)
}

func clusterObject(name, secret string) *multiclusterv1alpha1.Cluster {
	c := &multiclusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	c.Spec.KubeconfigSecretRef = multiclusterv1alpha1.SecretReference{Name: secret}
	c.Spec.Region = "nantes"
	return c
}

func TestJoinReportsHealthAndCapacity(t *testing.T) {
	env, inv := start(t, 1)
	mgmt, member := env.Management.Client, env.Members[0]
	proxy := member.NewProxy(t)
	kubeconfig, err := proxy.Kubeconfig(member.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	addNode(t, member.Client, "n1", "4")
	addNode(t, member.Client, "n2", "2")

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "nantes", Namespace: "meridian-system"}}
	secret.Data = map[string][]byte{"kubeconfig": kubeconfig}
	if err := mgmt.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	if err := mgmt.Create(t.Context(), clusterObject("nantes", "nantes")); err != nil {
		t.Fatal(err)
	}

	eventually(t, "Ready with capacity", func() string {
		cl, ready := readyOf(t, mgmt, "nantes")
		switch {
		case ready == nil || ready.Status != metav1.ConditionTrue:
			return fmt.Sprintf("Ready = %+v", ready)
		case cl.Status.NodeCount != 2:
			return fmt.Sprintf("nodeCount = %d", cl.Status.NodeCount)
		case cl.Status.Allocatable.Cpu().String() != "6":
			return fmt.Sprintf("allocatable cpu = %s", cl.Status.Allocatable.Cpu())
		case cl.Status.KubernetesVersion != "v1.36.3":
			return fmt.Sprintf("kubernetesVersion = %q", cl.Status.KubernetesVersion)
		case cl.Status.LastHeartbeatTime == nil:
			return "no heartbeat time"
		}
		return ""
	})
	if s := inv.Snapshot(nil).Cluster("nantes"); s == nil || !s.Ready || len(s.Nodes) != 2 {
		t.Fatalf("inventory snapshot of nantes = %+v, want ready with 2 nodes", s)
	}

	// The network to the member breaks: NotReady with the error, and the
	// inventory stops offering it to placement.
	proxy.Break()
	eventually(t, "NotReady after the member stops answering", func() string {
		_, ready := readyOf(t, mgmt, "nantes")
		if ready.Status != metav1.ConditionFalse || ready.Reason != multiclusterv1alpha1.ClusterReasonUnreachable {
			return fmt.Sprintf("Ready = %+v", ready)
		}
		if !strings.Contains(ready.Message, "did not answer") {
			return fmt.Sprintf("message %q does not carry the error", ready.Message)
		}
		return ""
	})
	if s := inv.Snapshot(nil).Cluster("nantes"); s.Ready {
		t.Errorf("inventory still offers unreachable nantes to placement")
	}

	proxy.Restore()
	eventually(t, "Ready again after the network came back", func() string {
		if _, ready := readyOf(t, mgmt, "nantes"); ready.Status != metav1.ConditionTrue {
			return fmt.Sprintf("Ready = %+v", ready)
		}
		return ""
	})
}

func TestMissingKubeconfigIsReportedAndRecovered(t *testing.T) {
	env, _ := start(t, 1)
	mgmt := env.Management.Client
	if err := mgmt.Create(t.Context(), clusterObject("late", "late-kubeconfig")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "KubeconfigInvalid naming the Secret", func() string {
		_, ready := readyOf(t, mgmt, "late")
		if ready == nil || ready.Reason != multiclusterv1alpha1.ClusterReasonKubeconfigInvalid ||
			!strings.Contains(ready.Message, "meridian-system/late-kubeconfig") {
			return fmt.Sprintf("Ready = %+v", ready)
		}
		return ""
	})

	// A Secret without the key is named with the key it lacks.
	secret := env.Members[0].KubeconfigSecret("meridian-system", "late-kubeconfig")
	secret.Data = map[string][]byte{"config": secret.Data["kubeconfig"]}
	if err := mgmt.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	eventually(t, "message names the missing key", func() string {
		_, ready := readyOf(t, mgmt, "late")
		if !strings.Contains(ready.Message, `no key "kubeconfig"`) {
			return fmt.Sprintf("Ready = %+v", ready)
		}
		return ""
	})

	secret.Data = map[string][]byte{"kubeconfig": env.Members[0].Kubeconfig}
	if err := mgmt.Update(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Ready once the Secret is fixed", func() string {
		if _, ready := readyOf(t, mgmt, "late"); ready.Status != metav1.ConditionTrue {
			return fmt.Sprintf("Ready = %+v", ready)
		}
		return ""
	})
}

func TestDeletingAClusterRemovesMeridiansObjectsFromTheMember(t *testing.T) {
	env, inv := start(t, 1)
	mgmt, member := env.Management.Client, env.Members[0].Client
	if err := mgmt.Create(t.Context(), env.Members[0].KubeconfigSecret("meridian-system", "m1")); err != nil {
		t.Fatal(err)
	}
	if err := mgmt.Create(t.Context(), clusterObject("m1", "m1")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Ready", func() string {
		if _, ready := readyOf(t, mgmt, "m1"); ready == nil || ready.Status != metav1.ConditionTrue {
			return fmt.Sprintf("Ready = %+v", ready)
		}
		return ""
	})

	deployment := func(name string, ours bool) *appsv1.Deployment {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
		if ours {
			d.Labels = map[string]string{multiclusterv1alpha1.LabelManagedBy: multiclusterv1alpha1.ManagedByMeridian}
		}
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
		d.Spec.Template.Labels = map[string]string{"app": name}
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}
		return d
	}
	for _, d := range []*appsv1.Deployment{deployment("placed-by-meridian", true), deployment("users-own", false)} {
		if err := member.Create(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}

	if err := mgmt.Delete(t.Context(), clusterObject("m1", "m1")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Cluster gone", func() string {
		err := mgmt.Get(t.Context(), client.ObjectKey{Name: "m1"}, &multiclusterv1alpha1.Cluster{})
		if !apierrors.IsNotFound(err) {
			return fmt.Sprintf("get Cluster: %v", err)
		}
		return ""
	})
	d := &appsv1.Deployment{}
	if err := member.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "placed-by-meridian"}, d); !apierrors.IsNotFound(err) && d.DeletionTimestamp.IsZero() {
		t.Errorf("Meridian's deployment is still in the member: %v", err)
	}
	if err := member.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "users-own"}, &appsv1.Deployment{}); err != nil {
		t.Errorf("the user's own deployment was touched: %v", err)
	}
	if _, ok := inv.Member("m1"); ok {
		t.Errorf("inventory still holds a connection to m1")
	}
}
