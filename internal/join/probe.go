package join

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/config"
)

// ProbeName names the prober's ServiceAccount, Role, RoleBinding and
// Deployment in the member.
const ProbeName = "meridian-probe"

// probeObjects are the latency prober Join deploys in the member: its
// ServiceAccount, the prober's generated rules (config/rbac/probe) as a
// Role of the namespace only, and a Deployment of one replica on the host
// network, so that the other members' probers reach it at its node's
// address, which it advertises.
func probeObjects(o Options) ([]client.Object, error) {
	generated, err := config.ComponentRole("probe")
	if err != nil {
		return nil, err
	}
	l := labels(o.Name)
	selector := map[string]string{"app.kubernetes.io/name": ProbeName}
	podLabels := map[string]string{"app.kubernetes.io/name": ProbeName}
	for k, v := range l {
		podLabels[k] = v
	}
	port := strconv.Itoa(int(o.ProbePort))
	sa := &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName, Namespace: o.Namespace, Labels: l},
	}
	role := &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName, Namespace: o.Namespace, Labels: l},
		Rules:      generated.Rules,
	}
	binding := &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName, Namespace: o.Namespace, Labels: l},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ProbeName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ProbeName, Namespace: o.Namespace}},
	}
	deployment := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: ProbeName, Namespace: o.Namespace, Labels: l},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			// One prober at a time: a second would advertise itself too.
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					ServiceAccountName: ProbeName,
					HostNetwork:        true,
					DNSPolicy:          corev1.DNSClusterFirstWithHostNet,
					SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532)},
					Containers: []corev1.Container{{
						Name:  "probe",
						Image: o.ProbeImage,
						Args: []string{"probe", "--namespace", o.Namespace, "--listen", ":" + port,
							"--advertise", "$(HOST_IP):" + port},
						Env: []corev1.EnvVar{{Name: "HOST_IP", ValueFrom: &corev1.EnvVarSource{
							FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"}}}},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
						},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
	return []client.Object{sa, role, binding, deployment}, nil
}
