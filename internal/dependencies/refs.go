package dependencies

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Kind is a kind of object a pod can depend on.
type Kind string

// The kinds a pod template can name.
const (
	ConfigMap             Kind = "ConfigMap"
	Secret                Kind = "Secret"
	ServiceAccount        Kind = "ServiceAccount"
	PersistentVolumeClaim Kind = "PersistentVolumeClaim"
)

// Kinds are every Kind, in the order a member receives them: what a
// ServiceAccount's imagePullSecrets name before it, volumes' claims last.
var Kinds = []Kind{ConfigMap, Secret, ServiceAccount, PersistentVolumeClaim}

// Ref is one object a pod template names, in the template's namespace.
type Ref struct {
	Kind Kind
	Name string
	// Optional is true when every reference to the object is marked
	// optional: pods start without it.
	Optional bool
}

// DefaultServiceAccount exists in every namespace of every cluster; it is
// never copied.
const DefaultServiceAccount = "default"

// Of returns the objects spec names, sorted by kind and name, each once:
// the ConfigMaps and Secrets of volumes (projected ones included), envFrom
// and env valueFrom of every container (init and ephemeral ones too), the
// CSI and other volume sources' secret references, imagePullSecrets, the
// ServiceAccount unless it is the default one, and the claims of
// persistentVolumeClaim volumes. A reference marked optional anywhere and
// required elsewhere is required.
func Of(spec *corev1.PodSpec) []Ref {
	seen := map[Ref]bool{} // by kind and name, Optional false
	optional := map[Ref]bool{}
	add := func(kind Kind, name string, opt *bool) {
		if name == "" {
			return
		}
		r := Ref{Kind: kind, Name: name}
		isOpt := opt != nil && *opt
		if !seen[r] {
			seen[r] = true
			optional[r] = isOpt
			return
		}
		optional[r] = optional[r] && isOpt
	}
	if sa := spec.ServiceAccountName; sa != "" && sa != DefaultServiceAccount {
		add(ServiceAccount, sa, nil)
	}
	for _, s := range spec.ImagePullSecrets {
		// The kubelet pulls without a pull secret it cannot find, so a
		// missing one does not stop the pod by itself.
		add(Secret, s.Name, ptrTrue)
	}
	for _, v := range spec.Volumes {
		volume(&v.VolumeSource, add)
	}
	for _, c := range containers(spec) {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil {
				add(ConfigMap, e.ConfigMapRef.Name, e.ConfigMapRef.Optional)
			}
			if e.SecretRef != nil {
				add(Secret, e.SecretRef.Name, e.SecretRef.Optional)
			}
		}
		for _, e := range c.Env {
			if f := e.ValueFrom; f != nil {
				if f.ConfigMapKeyRef != nil {
					add(ConfigMap, f.ConfigMapKeyRef.Name, f.ConfigMapKeyRef.Optional)
				}
				if f.SecretKeyRef != nil {
					add(Secret, f.SecretKeyRef.Name, f.SecretKeyRef.Optional)
				}
			}
		}
	}
	out := make([]Ref, 0, len(seen))
	for r := range seen {
		r.Optional = optional[r]
		out = append(out, r)
	}
	slices.SortFunc(out, compare)
	return out
}

var ptrTrue = func() *bool { t := true; return &t }()

func compare(a, b Ref) int {
	return cmp.Or(cmp.Compare(slices.Index(Kinds, a.Kind), slices.Index(Kinds, b.Kind)), cmp.Compare(a.Name, b.Name))
}

// containers are every container of spec, as the fields Of reads.
func containers(spec *corev1.PodSpec) []corev1.Container {
	out := slices.Concat(spec.InitContainers, spec.Containers)
	for _, e := range spec.EphemeralContainers {
		out = append(out, corev1.Container{EnvFrom: e.EnvFrom, Env: e.Env})
	}
	return out
}

// volume adds what one volume source names.
func volume(v *corev1.VolumeSource, add func(Kind, string, *bool)) {
	switch {
	case v.ConfigMap != nil:
		add(ConfigMap, v.ConfigMap.Name, v.ConfigMap.Optional)
	case v.Secret != nil:
		add(Secret, v.Secret.SecretName, v.Secret.Optional)
	case v.PersistentVolumeClaim != nil:
		add(PersistentVolumeClaim, v.PersistentVolumeClaim.ClaimName, nil)
	case v.Projected != nil:
		for _, s := range v.Projected.Sources {
			if s.ConfigMap != nil {
				add(ConfigMap, s.ConfigMap.Name, s.ConfigMap.Optional)
			}
			if s.Secret != nil {
				add(Secret, s.Secret.Name, s.Secret.Optional)
			}
		}
	case v.CSI != nil && v.CSI.NodePublishSecretRef != nil:
		add(Secret, v.CSI.NodePublishSecretRef.Name, nil)
	case v.CephFS != nil && v.CephFS.SecretRef != nil:
		add(Secret, v.CephFS.SecretRef.Name, nil)
	case v.RBD != nil && v.RBD.SecretRef != nil:
		add(Secret, v.RBD.SecretRef.Name, nil)
	case v.ISCSI != nil && v.ISCSI.SecretRef != nil:
		add(Secret, v.ISCSI.SecretRef.Name, nil)
	case v.FlexVolume != nil && v.FlexVolume.SecretRef != nil:
		add(Secret, v.FlexVolume.SecretRef.Name, nil)
	case v.AzureFile != nil:
		add(Secret, v.AzureFile.SecretName, nil)
	case v.ScaleIO != nil && v.ScaleIO.SecretRef != nil:
		add(Secret, v.ScaleIO.SecretRef.Name, nil)
	case v.StorageOS != nil && v.StorageOS.SecretRef != nil:
		add(Secret, v.StorageOS.SecretRef.Name, nil)
	}
}
