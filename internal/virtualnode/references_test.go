package virtualnode_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
	"github.com/meridian-dev/meridian/internal/virtualnode"
)

// TestReflectedReferences: two offloaded pods read the ConfigMap web-conf
// and the Secret web-secret, and one of them mounts the service account
// token Secret. A change of either in the consumer reaches its copy in
// the provider; the token Secret is never copied; the copies stay while a
// twin references them and are deleted with the last one.
func TestReflectedReferences(t *testing.T) {
	h := setup(t, virtualnode.Options{})
	h.createWorkloadObjects(t)
	create(t, h.consumer, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: workloadNS, Name: "default-token", Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
		Type:       corev1.SecretTypeServiceAccountToken,
	})
	h.startAgent(t)
	h.advertise(t, "adv-a", "small", 2, time.Hour)
	h.waitNodesReady(t, "vn-p1-small-0", "vn-p1-small-1")

	withToken := webPod("web-1")
	withToken.Spec.Volumes = append(withToken.Spec.Volumes, corev1.Volume{Name: "token", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "default-token"}}})
	create(t, h.consumer, withToken)
	bind(t, h.consumer, withToken, "vn-p1-small-0")
	h.offload(t, "web-2", "vn-p1-small-1")
	h.waitPodPhase(t, "web-1", corev1.PodRunning)
	h.waitPodPhase(t, "web-2", corev1.PodRunning)

	twinNS := virtualnode.TwinNamespace(consumerID, workloadNS)
	// copies are the ConfigMaps and Secrets this consumer reflected into
	// the twin namespace, with their data.
	copies := func() map[string]string {
		out := map[string]string{}
		mine := client.MatchingLabels{sharingv1alpha1.LabelConsumer: consumerID}
		var cms corev1.ConfigMapList
		if err := h.provider.List(t.Context(), &cms, client.InNamespace(twinNS), mine); err != nil {
			t.Fatal(err)
		}
		for _, c := range cms.Items {
			out["ConfigMap/"+c.Name] = c.Data["web.conf"]
		}
		var secrets corev1.SecretList
		if err := h.provider.List(t.Context(), &secrets, client.InNamespace(twinNS), mine); err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets.Items {
			out["Secret/"+s.Name] = string(s.Data["token"])
		}
		return out
	}
	testenv.Eventually(t, waitFor, "the references are copied, the token Secret is not", func() string {
		return cmp.Diff(map[string]string{"ConfigMap/web-conf": "listen 8080;", "Secret/web-secret": "s3cret"}, copies())
	})

	cm := &corev1.ConfigMap{}
	if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: "web-conf"}, cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["web.conf"] = "listen 9090;"
	if err := h.consumer.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: "web-secret"}, secret); err != nil {
		t.Fatal(err)
	}
	secret.Data["token"] = []byte("rotated")
	if err := h.consumer.Update(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	token := &corev1.Secret{}
	if err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: "default-token"}, token); err != nil {
		t.Fatal(err)
	}
	token.Data = map[string][]byte{"token": []byte("consumer-credentials")}
	if err := h.consumer.Update(t.Context(), token); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitFor, "changes reach the copies, the token Secret is still not copied", func() string {
		return cmp.Diff(map[string]string{"ConfigMap/web-conf": "listen 9090;", "Secret/web-secret": "rotated"}, copies())
	})

	if err := h.consumer.Delete(t.Context(), webPod("web-1")); err != nil {
		t.Fatal(err)
	}
	h.waitPodGone(t, "web-1")
	time.Sleep(time.Second)
	if diff := cmp.Diff(map[string]string{"ConfigMap/web-conf": "listen 9090;", "Secret/web-secret": "rotated"}, copies()); diff != "" {
		t.Errorf("copies while web-2 still references them (-want +got):\n%s", diff)
	}
	if err := h.consumer.Delete(t.Context(), webPod("web-2")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitFor, "the copies go with the last twin referencing them", func() string {
		return cmp.Diff(map[string]string{}, copies())
	})
}

func (h *harness) waitPodGone(t *testing.T, name string) {
	t.Helper()
	testenv.Eventually(t, waitFor, "pod "+name+" deleted", func() string {
		err := h.consumer.Get(t.Context(), client.ObjectKey{Namespace: workloadNS, Name: name}, &corev1.Pod{})
		if err == nil {
			return "still there"
		}
		return ""
	})
}
