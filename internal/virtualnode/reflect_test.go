package virtualnode_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

func TestPodReflection(t *testing.T) {
	h := setup(t, virtualnode.Options{})
	h.createWorkloadObjects(t)
	h.startAgent(t)
	h.advertise(t, "adv-a", "small", 2, time.Hour)
	h.waitNodesReady(t, "vn-p1-small-0", "vn-p1-small-1")

	// The service account token volume, as the ServiceAccount admission
	// plugin of a cluster with a token controller adds it.
	pod := webPod("web-1")
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}})
	pod.Spec.ServiceAccountName = "default"
	pod.Spec.Containers[0].VolumeMounts = append(pod.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "kube-api-access-abcde", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true})
	create(t, h.consumer, pod)
	bind(t, h.consumer, pod, "vn-p1-small-0")
	got := h.waitPodPhase(t, "web-1", corev1.PodRunning)

	// The twin: the spec intact, no service account token, labelled for
	// the provider's ledger and with the pod's UID.
	twinKey := client.ObjectKey{Namespace: virtualnode.TwinNamespace(consumerID, workloadNS), Name: "web-1"}
	twin := &corev1.Pod{}
	if err := h.provider.Get(t.Context(), twinKey, twin); err != nil {
		t.Fatal(err)
	}
	if err := h.consumer.Get(t.Context(), client.ObjectKeyFromObject(pod), pod); err != nil {
		t.Fatal(err)
	}
	want := webPod("web-1").Spec.Containers[0]
	gotC := twin.Spec.Containers[0]
	gotC.TerminationMessagePath, gotC.TerminationMessagePolicy, gotC.ImagePullPolicy = "", "", ""
	if diff := cmp.Diff(want, gotC); diff != "" {
		t.Errorf("twin's container (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(webPod("web-1").Spec.Volumes, twin.Spec.Volumes, cmpVolumes); diff != "" {
		t.Errorf("twin's volumes (-want +got):\n%s", diff)
	}
	hasToken := false
	for _, v := range pod.Spec.Volumes {
		hasToken = hasToken || v.Projected != nil
	}
	if !hasToken {
		t.Errorf("consumer pod has no service account token volume; the test does not check that it is dropped")
	}
	for _, v := range twin.Spec.Volumes {
		if v.Projected != nil {
			t.Errorf("twin has the consumer's service account token volume %s", v.Name)
		}
	}
	if twin.Spec.ServiceAccountName != "" || twin.Spec.NodeName != "" {
		t.Errorf("twin serviceAccountName %q, nodeName %q, want both empty", twin.Spec.ServiceAccountName, twin.Spec.NodeName)
	}
	if twin.Spec.AutomountServiceAccountToken == nil || *twin.Spec.AutomountServiceAccountToken {
		t.Errorf("twin automountServiceAccountToken = %v, want false", twin.Spec.AutomountServiceAccountToken)
	}
	if twin.Labels[sharingv1alpha1.LabelConsumer] != consumerID || twin.Labels[virtualnode.LabelOriginUID] != string(pod.UID) {
		t.Errorf("twin labels = %v, want consumer %s and origin UID %s", twin.Labels, consumerID, pod.UID)
	}
	cm := &corev1.ConfigMap{}
	if err := h.provider.Get(t.Context(), client.ObjectKey{Namespace: twinKey.Namespace, Name: "web-conf"}, cm); err != nil {
		t.Errorf("ConfigMap not reflected: %v", err)
	} else if diff := cmp.Diff(map[string]string{"web.conf": "listen 8080;"}, cm.Data); diff != "" {
		t.Errorf("reflected ConfigMap (-want +got):\n%s", diff)
	}
	secret := &corev1.Secret{}
	if err := h.provider.Get(t.Context(), client.ObjectKey{Namespace: twinKey.Namespace, Name: "web-secret"}, secret); err != nil {
		t.Errorf("Secret not reflected: %v", err)
	} else if string(secret.Data["token"]) != "s3cret" {
		t.Errorf("reflected Secret token = %q, want s3cret", secret.Data["token"])
	}

	// Status flows back.
	if err := h.provider.Get(t.Context(), twinKey, twin); err != nil {
		t.Fatal(err)
	}
	if got.Status.PodIP != twin.Status.PodIP || got.Status.PodIP == "" || len(got.Status.ContainerStatuses) != 1 || !got.Status.ContainerStatuses[0].Ready {
		t.Errorf("consumer pod status: podIP %q (twin %q), containers %v", got.Status.PodIP, twin.Status.PodIP, got.Status.ContainerStatuses)
	}

	// Twin deleted in the provider: the consumer pod fails.
	if err := h.provider.Delete(t.Context(), twin); err != nil {
		t.Fatal(err)
	}
	failed := h.waitPodPhase(t, "web-1", corev1.PodFailed)
	if failed.Status.Reason != virtualnode.ReasonTwinDeleted {
		t.Errorf("failed pod reason = %q, want %q", failed.Status.Reason, virtualnode.ReasonTwinDeleted)
	}
	time.Sleep(time.Second)
	if err := h.provider.Get(t.Context(), twinKey, twin); !apierrors.IsNotFound(err) {
		t.Errorf("a twin came back for a failed pod: %v", err)
	}

	// Twin failed in the provider: the consumer pod fails with its reason.
	h.offload(t, "web-3", "vn-p1-small-1")
	h.waitPodPhase(t, "web-3", corev1.PodRunning)
	twin3 := &corev1.Pod{}
	if err := h.provider.Get(t.Context(), client.ObjectKey{Namespace: twinKey.Namespace, Name: "web-3"}, twin3); err != nil {
		t.Fatal(err)
	}
	twin3.Status.Phase, twin3.Status.Reason = corev1.PodFailed, "OOMKilled"
	if err := h.provider.Status().Update(t.Context(), twin3); err != nil {
		t.Fatal(err)
	}
	if failed := h.waitPodPhase(t, "web-3", corev1.PodFailed); failed.Status.Reason != "OOMKilled" {
		t.Errorf("pod of a failed twin: reason %q, want OOMKilled", failed.Status.Reason)
	}

	// Consumer pod deleted: the twin goes, then the pod.
	h.offload(t, "web-2", "vn-p1-small-1")
	h.waitPodPhase(t, "web-2", corev1.PodRunning)
	if err := h.consumer.Delete(t.Context(), webPod("web-2")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitFor, "twin and pod of a deleted pod gone", func() string {
		if err := h.provider.Get(t.Context(), client.ObjectKey{Namespace: twinKey.Namespace, Name: "web-2"}, &corev1.Pod{}); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("twin still there (%v)", err)
		}
		if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: "web-2"}, &corev1.Pod{}); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("pod still there (%v)", err)
		}
		return ""
	})

	// A pod not on a virtual node is left alone.
	plain := webPod("local")
	create(t, h.consumer, plain)
	bind(t, h.consumer, plain, "real-node")
	time.Sleep(time.Second)
	if err := h.provider.Get(t.Context(), client.ObjectKey{Namespace: twinKey.Namespace, Name: "local"}, &corev1.Pod{}); !apierrors.IsNotFound(err) {
		t.Errorf("a pod on a real node was reflected: %v", err)
	}
}

// cmpVolumes ignores defaults the API server fills in.
var cmpVolumes = cmp.Transformer("volumeNames", func(vs []corev1.Volume) []string {
	var out []string
	for _, v := range vs {
		kind := "other"
		if v.ConfigMap != nil {
			kind = "configMap:" + v.ConfigMap.Name
		}
		out = append(out, v.Name+"="+kind)
	}
	return out
})

func TestRestartMidReflection(t *testing.T) {
	const pods = 12
	h := setup(t, virtualnode.Options{MaxConcurrentReconciles: 1})
	h.createWorkloadObjects(t)
	a := h.startAgent(t)
	h.advertise(t, "adv-a", "small", 3, time.Hour)
	h.waitNodesReady(t, "vn-p1-small-0", "vn-p1-small-1", "vn-p1-small-2")
	for i := range pods {
		h.offload(t, fmt.Sprintf("web-%d", i), fmt.Sprintf("vn-p1-small-%d", i%3))
	}
	testenv.Eventually(t, waitFor, "some twins", func() string {
		if len(h.twins(t)) == 0 {
			return "no twin yet"
		}
		return ""
	})
	nodesBefore := h.nodeUIDs(t)
	a.Stop()
	t.Logf("agent stopped with %d of %d twins made", len(h.twins(t)), pods)

	// Deleted while the agent was down: its twin must go on restart.
	if err := h.consumer.Delete(t.Context(), webPod("web-0"), client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}

	h.startAgent(t)
	h.waitNodesReady(t, "vn-p1-small-0", "vn-p1-small-1", "vn-p1-small-2")
	if diff := cmp.Diff(nodesBefore, h.nodeUIDs(t)); diff != "" {
		t.Errorf("virtual nodes after the restart (-before +after):\n%s", diff)
	}
	for i := 1; i < pods; i++ {
		h.waitPodPhase(t, fmt.Sprintf("web-%d", i), corev1.PodRunning)
	}
	testenv.Eventually(t, waitFor, "one twin per pod", func() string {
		byUID := map[string]int{}
		for _, tw := range h.twins(t) {
			byUID[tw.Labels[virtualnode.LabelOriginUID]]++
		}
		want := map[string]int{}
		for i := 1; i < pods; i++ {
			p := &corev1.Pod{}
			if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: fmt.Sprintf("web-%d", i)}, p); err != nil {
				return err.Error()
			}
			want[string(p.UID)] = 1
		}
		return cmp.Diff(want, byUID)
	})
}

// nodeUIDs are the virtual nodes by name, with their UIDs.
func (h *harness) nodeUIDs(t *testing.T) map[string]string {
	t.Helper()
	var nodes corev1.NodeList
	if err := h.consumer.List(t.Context(), &nodes, client.MatchingLabels{sharingv1alpha1.LabelVirtualNode: "true"}); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range nodes.Items {
		out[n.Name] = string(n.UID)
	}
	return out
}
