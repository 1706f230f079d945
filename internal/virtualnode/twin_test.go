package virtualnode

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// offloadedPod is a consumer pod bound to a virtual node, as admission and
// the scheduler left it: with a service account token volume.
func offloadedPod() *corev1.Pod {
	prio := int32(1000)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", UID: "uid-1", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			NodeName: "vn-p1-small-0", ServiceAccountName: "web", Priority: &prio, PriorityClassName: "high",
			NodeSelector: map[string]string{sharingv1alpha1.LabelProvider: "p1", corev1.LabelArchStable: "amd64"},
			Tolerations: []corev1.Toleration{
				{Key: sharingv1alpha1.TaintVirtualNode, Operator: corev1.TolerationOpExists},
				{Key: "gpu", Operator: corev1.TolerationOpExists},
			},
			Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{}},
			Volumes: []corev1.Volume{
				{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-conf"}}}},
				{Name: "kube-api-access-x", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}},
			},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "registry"}},
			Containers: []corev1.Container{{
				Name: "web", Image: "nginx:1.27", Command: []string{"nginx"}, Args: []string{"-g", "daemon off;"},
				Ports:   []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
				Env:     []corev1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "web-secret"}, Key: "k"}}}},
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-env"}}}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/web"}, {Name: "kube-api-access-x", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}},
			}},
		},
	}
}

func TestTwin(t *testing.T) {
	pod := offloadedPod()
	got := Twin(pod, "c1")

	no := false
	want := offloadedPod().Spec
	want.NodeName, want.ServiceAccountName, want.Priority, want.PriorityClassName = "", "", nil, ""
	want.AutomountServiceAccountToken = &no
	want.NodeSelector = map[string]string{corev1.LabelArchStable: "amd64"}
	want.Tolerations = want.Tolerations[1:]
	want.Volumes = want.Volumes[:1]
	want.Containers[0].VolumeMounts = want.Containers[0].VolumeMounts[:1]
	want.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: sharingv1alpha1.LabelVirtualNode, Operator: corev1.NodeSelectorOpDoesNotExist}}}},
	}}}
	if diff := cmp.Diff(want, got.Spec); diff != "" {
		t.Errorf("Twin().Spec (-want +got):\n%s", diff)
	}
	wantMeta := metav1.ObjectMeta{
		Namespace: "shop-c1", Name: "web-1",
		Labels:      map[string]string{"app": "web", sharingv1alpha1.LabelConsumer: "c1", sharingv1alpha1.LabelProvider: "c1", LabelOriginUID: "uid-1"},
		Annotations: map[string]string{AnnotationOrigin: "shop/web-1"},
	}
	if diff := cmp.Diff(wantMeta, got.ObjectMeta); diff != "" {
		t.Errorf("Twin().ObjectMeta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(offloadedPod(), pod); diff != "" {
		t.Errorf("Twin() changed its input (-want +got):\n%s", diff)
	}
	if !IsTwin(got) || IsTwin(pod) {
		t.Errorf("IsTwin(twin) = %v, IsTwin(pod) = %v, want true, false", IsTwin(got), IsTwin(pod))
	}
}

func TestReferencesOf(t *testing.T) {
	pod := offloadedPod()
	pod.Spec.InitContainers = []corev1.Container{{Name: "init", EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "init-secret"}}}}}}
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "both", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
		{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj-cm"}}},
		{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj-secret"}}},
	}}}}, corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol-secret"}}})
	tests := []struct {
		name string
		pod  *corev1.Pod
		want References
	}{
		{name: "every kind of reference", pod: pod, want: References{
			ConfigMaps: []string{"proj-cm", "web-conf", "web-env"},
			Secrets:    []string{"init-secret", "proj-secret", "registry", "vol-secret", "web-secret"},
		}},
		{name: "none", pod: &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}, want: References{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ReferencesOf(tc.pod)); diff != "" {
				t.Errorf("ReferencesOf() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTwinNamespace(t *testing.T) {
	long := strings.Repeat("n", 60)
	tests := []struct {
		name      string
		consumer  sharingv1alpha1.ClusterID
		namespace string
		wantLen   int
		want      string
	}{
		{name: "short", consumer: "c1", namespace: "shop", want: "shop-c1"},
		{name: "long is hashed", consumer: "consumer-1", namespace: long, wantLen: 63},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := TwinNamespace(tc.consumer, tc.namespace)
			if tc.want != "" && got != tc.want {
				t.Errorf("TwinNamespace() = %q, want %q", got, tc.want)
			}
			if tc.wantLen != 0 && len(got) != tc.wantLen {
				t.Errorf("len(TwinNamespace()) = %d, want %d (%q)", len(got), tc.wantLen, got)
			}
			if other := TwinNamespace("consumer-2", tc.namespace); other == got {
				t.Errorf("TwinNamespace() is %q for two consumers", got)
			}
		})
	}
}
