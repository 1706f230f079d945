package vmrender

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Ready says whether the operator that owns obj reports it ready, and the
// operator's last message about it, reading the operator's own status
// convention.
func Ready(obj *unstructured.Unstructured) (ready bool, message string) {
	return false, "readiness is not built yet"
}
