package virtualnode_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

// webPod is a pod that opts into virtual nodes, reads a ConfigMap and a
// Secret, and gets a service account token from admission.
func webPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: workloadNS, Name: name, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			Tolerations: []corev1.Toleration{{Key: sharingv1alpha1.TaintVirtualNode, Operator: corev1.TolerationOpExists}},
			Volumes: []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "web-conf"}}}}},
			Containers: []corev1.Container{{
				Name: "web", Image: "nginx:1.27", Command: []string{"nginx"}, Args: []string{"-g", "daemon off;"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env: []corev1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "web-secret"}, Key: "token"}}}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/web"}},
			}},
		},
	}
}

func (h *harness) createWorkloadObjects(t *testing.T) {
	t.Helper()
	create(t, h.consumer, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: workloadNS, Name: "web-conf"}, Data: map[string]string{"web.conf": "listen 8080;"}})
	create(t, h.consumer, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: workloadNS, Name: "web-secret"}, Data: map[string][]byte{"token": []byte("s3cret")}})
}

// nodeNames are the virtual nodes in the consumer, sorted.
func (h *harness) nodeNames(t *testing.T) []string {
	t.Helper()
	var nodes corev1.NodeList
	if err := h.consumer.List(t.Context(), &nodes, client.MatchingLabels{sharingv1alpha1.LabelVirtualNode: "true"}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	sort.Strings(names)
	return names
}

func (h *harness) waitNodesReady(t *testing.T, names ...string) {
	t.Helper()
	testenv.Eventually(t, waitFor, "virtual nodes Ready", func() string {
		for _, name := range names {
			n := &corev1.Node{}
			if err := h.consumer.Get(t.Context(), client.ObjectKey{Name: name}, n); err != nil {
				return err.Error()
			}
			if !isReady(n) || n.Spec.Unschedulable {
				return fmt.Sprintf("node %s: ready %v, unschedulable %v", name, isReady(n), n.Spec.Unschedulable)
			}
		}
		return ""
	})
}

func (h *harness) offload(t *testing.T, name, node string) *corev1.Pod {
	t.Helper()
	pod := webPod(name)
	create(t, h.consumer, pod)
	bind(t, h.consumer, pod, node)
	return pod
}

func (h *harness) twins(t *testing.T) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	if err := h.provider.List(t.Context(), &pods, client.MatchingLabels{sharingv1alpha1.LabelConsumer: consumerID}); err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

func (h *harness) waitPodPhase(t *testing.T, name string, phase corev1.PodPhase) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{}
	testenv.Eventually(t, waitFor, fmt.Sprintf("pod %s %s", name, phase), func() string {
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: name}, pod); err != nil {
			return err.Error()
		}
		if pod.Status.Phase != phase {
			return fmt.Sprintf("phase %q, reason %q", pod.Status.Phase, pod.Status.Reason)
		}
		return ""
	})
	return pod
}

func TestVirtualNodesFollowAdvertisement(t *testing.T) {
	h := setup(t, virtualnode.Options{LeaseDuration: 4 * time.Second, NodeStatusInterval: 2 * time.Second})
	h.startAgent(t)
	h.advertise(t, "adv-a", "small", 3, time.Hour)
	want := []string{"vn-p1-small-0", "vn-p1-small-1", "vn-p1-small-2"}
	h.waitNodesReady(t, want...)
	if diff := cmp.Diff(want, h.nodeNames(t)); diff != "" {
		t.Errorf("virtual nodes (-want +got):\n%s", diff)
	}

	testenv.Eventually(t, waitFor, "advertisement status counts its virtual nodes", func() string {
		adv := &sharingv1alpha1.Advertisement{}
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: peerNS, Name: "adv-a"}, adv); err != nil {
			return err.Error()
		}
		if adv.Status.VirtualNodes != 3 {
			return fmt.Sprintf("status.virtualNodes = %d, want 3", adv.Status.VirtualNodes)
		}
		return ""
	})
	n := &corev1.Node{}
	if err := h.consumer.Get(t.Context(), client.ObjectKey{Name: "vn-p1-small-1"}, n); err != nil {
		t.Fatal(err)
	}
	wantAlloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")}
	if diff := cmp.Diff(wantAlloc.Cpu().String()+wantAlloc.Memory().String()+wantAlloc.Pods().String(), n.Status.Allocatable.Cpu().String()+n.Status.Allocatable.Memory().String()+n.Status.Allocatable.Pods().String()); diff != "" {
		t.Errorf("allocatable of one slice (-want +got):\n%s", diff)
	}
	for k, v := range map[string]string{sharingv1alpha1.LabelProvider: providerID, corev1.LabelTopologyRegion: "eu-west", sharingv1alpha1.LabelPricePrefix + "cpu": "0.031"} {
		if n.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, n.Labels[k], v)
		}
	}
	if len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != sharingv1alpha1.TaintVirtualNode {
		t.Errorf("taints = %v, want the virtual-node taint", n.Spec.Taints)
	}

	// The lease is renewed.
	lease := &coordinationv1.Lease{}
	if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: corev1.NamespaceNodeLease, Name: "vn-p1-small-1"}, lease); err != nil {
		t.Fatalf("lease of vn-p1-small-1: %v", err)
	}
	first := lease.Spec.RenewTime.Time
	testenv.Eventually(t, waitFor, "lease renewed", func() string {
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: corev1.NamespaceNodeLease, Name: "vn-p1-small-1"}, lease); err != nil {
			return err.Error()
		}
		if !lease.Spec.RenewTime.Time.After(first) {
			return fmt.Sprintf("renewTime still %s", first)
		}
		return ""
	})

	// Ready follows the peer.
	h.setPeerPhase(t, sharingv1alpha1.PeerUnreachable)
	testenv.Eventually(t, waitFor, "nodes NotReady with the peer unreachable", func() string {
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Name: "vn-p1-small-0"}, n); err != nil {
			return err.Error()
		}
		if isReady(n) {
			return "still Ready"
		}
		return ""
	})
	h.setPeerPhase(t, sharingv1alpha1.PeerEstablished)
	h.waitNodesReady(t, want...)

	// Refusal cordons, drains and deletes; a pod on a node is evicted and
	// its twin deleted.
	h.createWorkloadObjects(t)
	h.offload(t, "web-1", "vn-p1-small-0")
	h.waitPodPhase(t, "web-1", corev1.PodRunning)
	h.decide(t, "adv-a", sharingv1alpha1.DecisionRefused)
	testenv.Eventually(t, waitFor, "nodes of the refused advertisement gone, pod evicted and its twin deleted", func() string {
		if names := h.nodeNames(t); len(names) > 0 {
			return fmt.Sprintf("nodes left: %v", names)
		}
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: "web-1"}, &corev1.Pod{}); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("pod web-1 still there (%v)", err)
		}
		for _, tw := range h.twins(t) {
			if tw.DeletionTimestamp.IsZero() {
				return fmt.Sprintf("twin %s still there", tw.Name)
			}
		}
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: corev1.NamespaceNodeLease, Name: "vn-p1-small-0"}, lease); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("lease still there (%v)", err)
		}
		return ""
	})

	// Deletion of an advertisement deletes its nodes.
	h.advertise(t, "adv-b", "medium", 1, time.Hour)
	h.waitNodesReady(t, "vn-p1-medium-0")
	if err := h.consumer.Delete(t.Context(), &sharingv1alpha1.Advertisement{ObjectMeta: metav1.ObjectMeta{Namespace: peerNS, Name: "adv-b"}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitFor, "nodes of the deleted advertisement gone", func() string {
		if names := h.nodeNames(t); len(names) > 0 {
			return fmt.Sprintf("nodes left: %v", names)
		}
		return ""
	})
}

// TestExpiryCordonsAndDrains: a renewal with a short time-to-live that is
// not renewed again expires; the node is cordoned, its pod evicted once
// its PodDisruptionBudget allows it (the node stays cordoned until then,
// as kubectl drain waits), the twin deleted, then the node.
func TestExpiryCordonsAndDrains(t *testing.T) {
	h := setup(t, virtualnode.Options{ClockSkew: time.Second})
	h.createWorkloadObjects(t)
	h.startAgent(t)
	h.advertise(t, "adv-short", "small", 1, time.Hour)
	h.waitNodesReady(t, "vn-p1-small-0")
	h.offload(t, "web-1", "vn-p1-small-0")
	h.waitPodPhase(t, "web-1", corev1.PodRunning)
	one := intstr.FromInt32(1)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: workloadNS, Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	create(t, h.consumer, pdb)

	// Hold the twin's deletion so that it can be seen deleted after the
	// pod's eviction.
	var twin corev1.Pod
	if err := h.provider.Get(t.Context(), client.ObjectKey{Namespace: virtualnode.TwinNamespace(consumerID, workloadNS), Name: "web-1"}, &twin); err != nil {
		t.Fatal(err)
	}
	twin.Finalizers = append(twin.Finalizers, "test.meridian.dev/hold")
	if err := h.provider.Update(t.Context(), &twin); err != nil {
		t.Fatal(err)
	}

	// The provider renews with a time-to-live of 3 s and then no more:
	// the advertisement expires by the clock alone.
	adv := &sharingv1alpha1.Advertisement{}
	if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: peerNS, Name: "adv-short"}, adv); err != nil {
		t.Fatal(err)
	}
	adv.Spec.Timestamp, adv.Spec.TimeToLive = metav1.Now(), metav1.Duration{Duration: 3 * time.Second}
	if err := h.consumer.Update(t.Context(), adv); err != nil {
		t.Fatal(err)
	}
	n := &corev1.Node{}
	testenv.Eventually(t, waitFor, "node cordoned on expiry", func() string {
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Name: "vn-p1-small-0"}, n); err != nil {
			return err.Error()
		}
		if !n.Spec.Unschedulable {
			return "not cordoned"
		}
		return ""
	})
	// The budget refuses the eviction: the pod stays and so does the node.
	for range 10 {
		pod := &corev1.Pod{}
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: "web-1"}, pod); err != nil || !pod.DeletionTimestamp.IsZero() {
			t.Fatalf("pod web-1 evicted against its disruption budget (%v)", err)
		}
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Name: "vn-p1-small-0"}, n); err != nil {
			t.Fatalf("node deleted with a pod on it: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := h.consumer.Delete(t.Context(), pdb); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitFor, "twin deleted after the pod's eviction", func() string {
		if err := h.provider.Get(t.Context(), client.ObjectKeyFromObject(&twin), &twin); err != nil {
			return err.Error()
		}
		if twin.DeletionTimestamp.IsZero() {
			return "twin not being deleted"
		}
		return ""
	})
	twin.Finalizers = nil
	if err := h.provider.Update(t.Context(), &twin); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitFor, "expired node drained and deleted", func() string {
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: "web-1"}, &corev1.Pod{}); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("pod web-1 still there (%v)", err)
		}
		if names := h.nodeNames(t); len(names) > 0 {
			return fmt.Sprintf("nodes left: %v", names)
		}
		return ""
	})
}
