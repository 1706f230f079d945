package dependencies_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/meridian-dev/meridian/internal/dependencies"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		spec corev1.PodSpec
		want []dependencies.Ref
	}{
		{name: "nothing named", spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}, want: []dependencies.Ref{}},
		{
			name: "the default ServiceAccount is not copied",
			spec: corev1.PodSpec{ServiceAccountName: "default"},
			want: []dependencies.Ref{},
		},
		{
			name: "every kind of reference, each once, sorted by kind and name",
			spec: corev1.PodSpec{
				ServiceAccountName: "web",
				ImagePullSecrets:   []corev1.LocalObjectReference{{Name: "registry"}},
				Volumes: []corev1.Volume{
					{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}},
					{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "web-tls"}}},
					{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
					{Name: "all", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "extra"}, Optional: ptr.To(true)}},
						{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "web-tls"}}},
					}}}},
					{Name: "csi", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d", NodePublishSecretRef: &corev1.LocalObjectReference{Name: "csi-creds"}}}},
				},
				InitContainers: []corev1.Container{{Name: "init", EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}}}},
				Containers: []corev1.Container{{Name: "web",
					EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Optional: ptr.To(true)}}},
					Env: []corev1.EnvVar{
						{Name: "A", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "extra"}, Key: "a"}}},
						{Name: "B", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "b", Optional: ptr.To(true)}}},
					}}},
			},
			want: []dependencies.Ref{
				{Kind: dependencies.ConfigMap, Name: "extra"}, // optional in the volume, required in env
				{Kind: dependencies.ConfigMap, Name: "web-config"},
				{Kind: dependencies.Secret, Name: "csi-creds"},
				{Kind: dependencies.Secret, Name: "db", Optional: true},
				{Kind: dependencies.Secret, Name: "registry", Optional: true},
				{Kind: dependencies.Secret, Name: "web-tls"},
				{Kind: dependencies.ServiceAccount, Name: "web"},
				{Kind: dependencies.PersistentVolumeClaim, Name: "data"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, dependencies.Of(&tc.spec)); diff != "" {
				t.Errorf("Of (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	conf := dependencies.Ref{Kind: dependencies.ConfigMap, Name: "conf"}
	optConf := dependencies.Ref{Kind: dependencies.ConfigMap, Name: "conf", Optional: true}
	tls := dependencies.Ref{Kind: dependencies.Secret, Name: "tls"}
	tests := []struct {
		name  string
		users []dependencies.User
		want  map[string][]dependencies.Need
	}{
		{name: "no workload, nothing anywhere", want: map[string][]dependencies.Need{}},
		{
			name:  "a workload not placed needs nothing",
			users: []dependencies.User{{Key: "web", Refs: []dependencies.Ref{conf}}},
			want:  map[string][]dependencies.Need{},
		},
		{
			name: "each cluster holds what the workloads it runs name, with who names it",
			users: []dependencies.User{
				{Key: "web", Clusters: []string{"a", "b"}, Refs: []dependencies.Ref{conf, tls}},
				{Key: "api", Clusters: []string{"b", "c"}, Refs: []dependencies.Ref{optConf}},
				{Key: "batch", Clusters: []string{"d"}},
			},
			want: map[string][]dependencies.Need{
				"a": {{Ref: conf, Users: []string{"web"}}, {Ref: tls, Users: []string{"web"}}},
				"b": {{Ref: conf, Users: []string{"api", "web"}}, {Ref: tls, Users: []string{"web"}}},
				"c": {{Ref: optConf, Users: []string{"api"}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, dependencies.Plan(tc.users)); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
		})
	}
}
