package virtualnode

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// TwinNamespace is the provider namespace that holds the twins of one
// consumer namespace: "<namespace>-<consumer>", or a hashed name when that
// is longer than a namespace name may be. Keeping one provider namespace
// per consumer namespace keeps pod, ConfigMap and Secret names unchanged,
// so the twin's references need no rewriting.
func TwinNamespace(consumer sharingv1alpha1.ClusterID, namespace string) string {
	name := namespace + "-" + string(consumer)
	if len(name) <= 63 {
		return name
	}
	h := sha256.Sum256([]byte(name))
	return strings.TrimRight(name[:50], "-") + "-" + hex.EncodeToString(h[:])[:12]
}

// Twin is the pod that runs pod's workload in the provider: the same
// containers with their requests, limits, env, command, args, ports and
// volume mounts, and the same volumes, in TwinNamespace, labelled for
// consumer's ledger and with pod's UID so it is found again after a
// restart. What only means something in the consumer is dropped: the node
// binding, node and pod affinity (they name the consumer's nodes and
// pods), node selectors on virtual-node labels, the virtual-node
// toleration, the priority class and the service account with its token,
// which would give the provider the consumer's credentials. The twin
// keeps off the provider's own virtual nodes, so it is never forwarded
// again.
func Twin(pod *corev1.Pod, consumer sharingv1alpha1.ClusterID) *corev1.Pod {
	spec := pod.Spec.DeepCopy()
	spec.NodeName = ""
	spec.ServiceAccountName = ""
	spec.DeprecatedServiceAccount = ""
	no := false
	spec.AutomountServiceAccountToken = &no
	spec.Priority = nil
	spec.PriorityClassName = ""
	spec.PreemptionPolicy = nil
	spec.SchedulerName = ""

	tokens := map[string]bool{}
	var volumes []corev1.Volume
	for _, v := range spec.Volumes {
		if isTokenVolume(v) {
			tokens[v.Name] = true
			continue
		}
		volumes = append(volumes, v)
	}
	spec.Volumes = volumes
	for i := range spec.InitContainers {
		spec.InitContainers[i].VolumeMounts = dropMounts(spec.InitContainers[i].VolumeMounts, tokens)
	}
	for i := range spec.Containers {
		spec.Containers[i].VolumeMounts = dropMounts(spec.Containers[i].VolumeMounts, tokens)
	}

	var tolerations []corev1.Toleration
	for _, t := range spec.Tolerations {
		if t.Key != sharingv1alpha1.TaintVirtualNode {
			tolerations = append(tolerations, t)
		}
	}
	spec.Tolerations = tolerations
	for k := range spec.NodeSelector {
		if strings.HasPrefix(k, "sharing.meridian.dev/") || k == "type" || k == corev1.LabelHostname {
			delete(spec.NodeSelector, k)
		}
	}
	if len(spec.NodeSelector) == 0 {
		spec.NodeSelector = nil
	}
	spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: sharingv1alpha1.LabelVirtualNode, Operator: corev1.NodeSelectorOpDoesNotExist}},
		}}},
	}}

	labels := make(map[string]string, len(pod.Labels)+3)
	for k, v := range pod.Labels {
		labels[k] = v
	}
	labels[sharingv1alpha1.LabelConsumer] = string(consumer)
	labels[sharingv1alpha1.LabelProvider] = string(consumer)
	labels[LabelOriginUID] = string(pod.UID)
	annotations := make(map[string]string, len(pod.Annotations)+1)
	for k, v := range pod.Annotations {
		annotations[k] = v
	}
	annotations[AnnotationOrigin] = pod.Namespace + "/" + pod.Name
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: pod.Name, Namespace: TwinNamespace(consumer, pod.Namespace),
			Labels: labels, Annotations: annotations,
		},
		Spec: *spec,
	}
}

// IsTwin reports whether pod is a twin some consumer made; such a pod is
// never reflected again.
func IsTwin(pod *corev1.Pod) bool {
	_, ok := pod.Labels[sharingv1alpha1.LabelConsumer]
	return ok
}

// isTokenVolume is the projected service account token volume the
// ServiceAccount admission plugin adds ("kube-api-access-*").
func isTokenVolume(v corev1.Volume) bool {
	if v.Projected == nil {
		return false
	}
	for _, s := range v.Projected.Sources {
		if s.ServiceAccountToken != nil {
			return true
		}
	}
	return false
}

func dropMounts(mounts []corev1.VolumeMount, drop map[string]bool) []corev1.VolumeMount {
	var out []corev1.VolumeMount
	for _, m := range mounts {
		if !drop[m.Name] {
			out = append(out, m)
		}
	}
	return out
}

// References are the ConfigMaps and Secrets a pod reads, by name in its
// namespace, sorted.
type References struct {
	ConfigMaps, Secrets []string
}

// ReferencesOf lists the ConfigMaps and Secrets pod's volumes, projected
// volumes, env, envFrom and image pull secrets name; the service account
// token is not among them.
func ReferencesOf(pod *corev1.Pod) References {
	cms, secrets := map[string]bool{}, map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		if v.ConfigMap != nil {
			cms[v.ConfigMap.Name] = true
		}
		if v.Secret != nil {
			secrets[v.Secret.SecretName] = true
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					cms[s.ConfigMap.Name] = true
				}
				if s.Secret != nil {
					secrets[s.Secret.Name] = true
				}
			}
		}
	}
	for _, s := range pod.Spec.ImagePullSecrets {
		secrets[s.Name] = true
	}
	containers := append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
	for _, c := range containers {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil {
				cms[e.ConfigMapRef.Name] = true
			}
			if e.SecretRef != nil {
				secrets[e.SecretRef.Name] = true
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if e.ValueFrom.ConfigMapKeyRef != nil {
				cms[e.ValueFrom.ConfigMapKeyRef.Name] = true
			}
			if e.ValueFrom.SecretKeyRef != nil {
				secrets[e.ValueFrom.SecretKeyRef.Name] = true
			}
		}
	}
	delete(cms, "")
	delete(secrets, "")
	return References{ConfigMaps: sortedKeys(cms), Secrets: sortedKeys(secrets)}
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
