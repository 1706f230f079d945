package dependencies

import (
	"cmp"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/dependencies"
)

// newObject returns an empty object of kind.
func newObject(kind dependencies.Kind) client.Object {
	switch kind {
	case dependencies.ConfigMap:
		return &corev1.ConfigMap{}
	case dependencies.Secret:
		return &corev1.Secret{}
	case dependencies.ServiceAccount:
		return &corev1.ServiceAccount{}
	default:
		return &corev1.PersistentVolumeClaim{}
	}
}

// newList returns an empty list of kind.
func newList(kind dependencies.Kind) client.ObjectList {
	switch kind {
	case dependencies.ConfigMap:
		return &corev1.ConfigMapList{}
	case dependencies.Secret:
		return &corev1.SecretList{}
	case dependencies.ServiceAccount:
		return &corev1.ServiceAccountList{}
	default:
		return &corev1.PersistentVolumeClaimList{}
	}
}

// items are the objects of a list newList made.
func items(list client.ObjectList) []client.Object {
	objs, _ := apimeta.ExtractList(list) // a typed list always has Items
	out := make([]client.Object, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(client.Object))
	}
	return out
}

// sortedRefs are the keys of m by kind and name.
func sortedRefs(m map[dependencies.Ref]client.Object) []dependencies.Ref {
	return slices.SortedFunc(maps.Keys(m), func(a, b dependencies.Ref) int {
		return cmp.Or(cmp.Compare(slices.Index(dependencies.Kinds, a.Kind), slices.Index(dependencies.Kinds, b.Kind)), cmp.Compare(a.Name, b.Name))
	})
}
