package selection

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// PlacementName is the name of the ResourcePlacement of the object name of
// gvk: kind[.group]-name, lower case, shortened with a hash past 253
// characters.
func PlacementName(gvk schema.GroupVersionKind, name string) string {
	prefix := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		prefix += "." + gvk.Group
	}
	n := prefix + "-" + name
	if len(n) <= 253 {
		return n
	}
	sum := sha256.Sum256([]byte(n))
	return n[:253-17] + "-" + hex.EncodeToString(sum[:8])
}
