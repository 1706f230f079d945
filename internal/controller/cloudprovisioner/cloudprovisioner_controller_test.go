package cloudprovisioner_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

func deployment(replicas int32) *multiclusterv1alpha1.MultiClusterDeployment {
	labels := map[string]string{"app": "web"}
	d := &multiclusterv1alpha1.MultiClusterDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Labels = labels
	d.Spec.Placement.Bursting = &multiclusterv1alpha1.Bursting{Enabled: true}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")},
	}}}
	return d
}

func provisioner() *multiclusterv1alpha1.CloudProvisioner {
	cp := &multiclusterv1alpha1.CloudProvisioner{ObjectMeta: metav1.ObjectMeta{Namespace: "meridian-system", Name: "burst"}}
	cp.Spec = multiclusterv1alpha1.CloudProvisionerSpec{
		CloudClusterName: "cloud1", Provider: "Testbed", Backend: multiclusterv1alpha1.BackendTestbed, Region: "local",
		Flavors:  []multiclusterv1alpha1.CloudFlavor{{Name: "medium", CPU: resource.MustParse("2"), Memory: resource.MustParse("8Gi")}},
		MinNodes: 1, MaxNodes: 3,
		ScaleDownDelay:   &metav1.Duration{Duration: time.Second},
		DeprovisionDelay: &metav1.Duration{Duration: 2 * time.Second},
	}
	return cp
}

// TestProvisionsScalesAndRemovesACloudCluster follows Algorithm 4 on real
// API servers: replicas that fit nowhere get a cloud cluster sized for
// them, which joins as a cloud Cluster and takes them; more replicas add a
// node; when the workload shrinks back home the cloud cluster is removed
// after the de-provisioning delay, and a restart on the way never asks for
// a second cluster.
func TestProvisionsScalesAndRemovesACloudCluster(t *testing.T) {
	h := setup(t)
	ctx := t.Context()
	if err := h.mgmt.Create(ctx, provisioner()); err != nil {
		t.Fatal(err)
	}
	get := func() *multiclusterv1alpha1.CloudProvisioner {
		cp := &multiclusterv1alpha1.CloudProvisioner{}
		if err := h.mgmt.Get(ctx, client.ObjectKey{Namespace: "meridian-system", Name: "burst"}, cp); err != nil {
			t.Fatal(err)
		}
		return cp
	}
	eventually(t, "an idle provisioner", func() string {
		cp := get()
		if c := meta.FindStatusCondition(cp.Status.Conditions, multiclusterv1alpha1.CloudProvisionerReady); c == nil || c.Reason != multiclusterv1alpha1.CloudReasonNoCluster {
			return fmt.Sprintf("conditions %+v", cp.Status.Conditions)
		}
		return ""
	})
	if _, created := h.backend.cluster("cloud1"); created != 0 {
		t.Fatalf("a cloud cluster was created with nothing to run")
	}

	// Six 1-CPU replicas, four fit in cluster1: two need the cloud, one
	// 2-CPU node.
	mcd := deployment(6)
	if err := h.mgmt.Create(ctx, mcd); err != nil {
		t.Fatal(err)
	}
	placedOn := func(want map[string]int32) func() string {
		return func() string {
			d := &multiclusterv1alpha1.MultiClusterDeployment{}
			if err := h.mgmt.Get(ctx, client.ObjectKeyFromObject(mcd), d); err != nil {
				return err.Error()
			}
			got := map[string]int32{}
			for _, c := range d.Status.Clusters {
				if c.Replicas > 0 {
					got[string(c.Name)] = c.Replicas
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || d.Status.UnplacedReplicas != 0 || d.Status.ReadyReplicas != *d.Spec.Replicas {
				cp := get()
				return fmt.Sprintf("placed %v, unplaced %d, ready %d; want %v all ready (provisioner %s, %d nodes, %+v) %+v",
					got, d.Status.UnplacedReplicas, d.Status.ReadyReplicas, want, cp.Status.Phase, cp.Status.Nodes, cp.Status.Conditions, d.Status.Clusters)
			}
			return ""
		}
	}
	eventually(t, "the overflow on a provisioned cloud cluster", placedOn(map[string]int32{"cluster1": 4, "cloud1": 2}))
	// The provisioner marks itself Ready on its next pass after the member
	// turns Ready, which the deployment controller may see first.
	eventually(t, "the provisioner Ready with one node", func() string {
		cp := get()
		if cp.Status.Phase != multiclusterv1alpha1.PhaseReady || cp.Status.Nodes != 1 || cp.Status.LastDecision == nil || cp.Status.LastDecision.Action != "ProvisionCluster" {
			return fmt.Sprintf("phase %s, nodes %d, last decision %+v", cp.Status.Phase, cp.Status.Nodes, cp.Status.LastDecision)
		}
		return ""
	})
	joined := &multiclusterv1alpha1.Cluster{}
	if err := h.mgmt.Get(ctx, client.ObjectKey{Name: "cloud1"}, joined); err != nil {
		t.Fatal(err)
	}
	if !joined.Spec.Cloud || joined.Labels[multiclusterv1alpha1.LabelCloudProvisioner] != "burst" {
		t.Fatalf("joined Cluster: cloud %v, labels %v; want a cloud Cluster labelled with its provisioner", joined.Spec.Cloud, joined.Labels)
	}

	// A restart must not ask for a second cluster.
	h.mgr.Stop()
	h.startManager(t)

	// Two more replicas: one more node.
	if err := h.mgmt.Patch(ctx, deployment(8), client.Merge); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a second cloud node taking the new replicas", placedOn(map[string]int32{"cluster1": 4, "cloud1": 4}))
	// The AddNodes pass records the node count it read before asking for
	// the node; the count of two comes from the backend on the next pass,
	// which the deployment controller may outrun.
	eventually(t, "the provisioner with two nodes after AddNodes", func() string {
		if cp := get(); cp.Status.Nodes != 2 || cp.Status.LastDecision == nil || cp.Status.LastDecision.Action != "AddNodes" {
			return fmt.Sprintf("nodes %d, last decision %+v; want 2 nodes after AddNodes", cp.Status.Nodes, cp.Status.LastDecision)
		}
		return ""
	})
	if _, created := h.backend.cluster("cloud1"); created != 1 {
		t.Fatalf("%d cloud clusters created; want 1 across the restart", created)
	}

	// Back to what cluster1 holds: the cloud empties, then goes.
	if err := h.mgmt.Patch(ctx, deployment(4), client.Merge); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the cloud cluster removed", func() string {
		cp := get()
		if cp.Status.Phase != multiclusterv1alpha1.PhaseIdle || cp.Status.LastDecision.Action != "RemoveCluster" {
			return fmt.Sprintf("phase %s, last decision %+v, empty since %v, nodes %d; workload %s", cp.Status.Phase, cp.Status.LastDecision, cp.Status.EmptySince, cp.Status.Nodes, placedOn(map[string]int32{"cluster1": 4})())
		}
		if err := h.mgmt.Get(ctx, client.ObjectKey{Name: "cloud1"}, &multiclusterv1alpha1.Cluster{}); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("Cluster cloud1 still there (%v)", err)
		}
		if c, _ := h.backend.cluster("cloud1"); c != nil {
			return "the backend still runs cloud1"
		}
		return ""
	})
	eventually(t, "every replica home", placedOn(map[string]int32{"cluster1": 4}))
}

// TestWaitsForAMissingBackendAndStandsBy checks the conditions a user sees
// when the controller cannot act for a CloudProvisioner.
func TestWaitsForAMissingBackendAndStandsBy(t *testing.T) {
	h := setup(t)
	ctx := t.Context()
	capi := provisioner()
	capi.Name = "aws"
	capi.Spec.Provider, capi.Spec.Backend = "AWS", multiclusterv1alpha1.BackendClusterAPI
	capi.Spec.CredentialsSecretRef = &multiclusterv1alpha1.SecretReference{Name: "aws-credentials"}
	if err := h.mgmt.Create(ctx, capi); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the missing backend reported", func() string {
		cp := &multiclusterv1alpha1.CloudProvisioner{}
		if err := h.mgmt.Get(ctx, client.ObjectKeyFromObject(capi), cp); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(cp.Status.Conditions, multiclusterv1alpha1.CloudProvisionerReady)
		if c == nil || c.Reason != multiclusterv1alpha1.CloudReasonBackendError || c.Message != "backend ClusterAPI is not enabled in this controller (enabled: [Testbed])" {
			return fmt.Sprintf("conditions %+v", cp.Status.Conditions)
		}
		return ""
	})
	later := provisioner()
	if err := h.mgmt.Create(ctx, later); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the younger provisioner standing by", func() string {
		cp := &multiclusterv1alpha1.CloudProvisioner{}
		if err := h.mgmt.Get(ctx, client.ObjectKeyFromObject(later), cp); err != nil {
			return err.Error()
		}
		if c := meta.FindStatusCondition(cp.Status.Conditions, multiclusterv1alpha1.CloudProvisionerActive); c == nil || c.Reason != multiclusterv1alpha1.CloudReasonStandby {
			return fmt.Sprintf("conditions %+v", cp.Status.Conditions)
		}
		return ""
	})
}
