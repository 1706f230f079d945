package sharing

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// MaxMessageBytes is the largest message Decode reads, the API server's
// own limit on a request body.
const MaxMessageBytes = 3 << 20

// Decode reads one sharing message or object (any kind of
// sharing.meridian.dev/v1alpha1) from YAML or JSON, refusing unknown and
// duplicate fields, and validates it with Validate. Errors name the field
// and say what would be valid.
func Decode(data []byte) (runtime.Object, error) {
	if len(data) > MaxMessageBytes {
		return nil, fmt.Errorf("message is %d bytes, more than the %d allowed", len(data), MaxMessageBytes)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("failed to read message as YAML or JSON: %w", err)
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(js, &tm); err != nil {
		return nil, fmt.Errorf("message is not an object with apiVersion and kind: %w", err)
	}
	if tm.APIVersion != sharingv1alpha1.GroupVersion.String() {
		return nil, fmt.Errorf("apiVersion: %q is not supported: want %q", tm.APIVersion, sharingv1alpha1.GroupVersion.String())
	}
	obj, err := newObject(tm.Kind)
	if err != nil {
		return nil, err
	}
	if err := yaml.UnmarshalStrict(js, obj); err != nil {
		return nil, fmt.Errorf("failed to decode %s: %w", tm.Kind, err)
	}
	if errs := Validate(obj); len(errs) > 0 {
		return nil, fmt.Errorf("invalid %s: %w", tm.Kind, errs.ToAggregate())
	}
	return obj, nil
}

// kinds are the kinds Decode reads.
var kinds = []string{"Peer", "Advertisement", "Reservation", "Quote", "Offer", "Acknowledgement", "Release"}

func newObject(kind string) (runtime.Object, error) {
	switch kind {
	case "Peer":
		return &sharingv1alpha1.Peer{}, nil
	case "Advertisement":
		return &sharingv1alpha1.Advertisement{}, nil
	case "Reservation":
		return &sharingv1alpha1.Reservation{}, nil
	case "Quote":
		return &sharingv1alpha1.Quote{}, nil
	case "Offer":
		return &sharingv1alpha1.Offer{}, nil
	case "Acknowledgement":
		return &sharingv1alpha1.Acknowledgement{}, nil
	case "Release":
		return &sharingv1alpha1.Release{}, nil
	}
	return nil, fmt.Errorf("kind: %q is not a sharing message: want one of %v", kind, kinds)
}
