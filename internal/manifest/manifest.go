// Package manifest reads Kubernetes objects from multi-document YAML (or
// JSON) files, as kubectl apply -f does, without knowing their kinds.
package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Read decodes every object of r, a stream of YAML documents separated by
// ---, skipping empty ones; integers come as int64, as the API server
// returns them. An error names the document's position.
func Read(r io.Reader) ([]*unstructured.Unstructured, error) {
	yr := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var objs []*unstructured.Unstructured
	for n := 1; ; n++ {
		doc, err := yr.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		js, err := utilyaml.ToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if s := bytes.TrimSpace(js); len(s) == 0 || string(s) == "null" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		objs = append(objs, u)
	}
}

// ForApply returns a typed object (with its TypeMeta set) as server-side
// apply takes it: without its status and the zero creation timestamp that
// a typed object always carries, which would otherwise be applied too.
func ForApply(obj runtime.Object) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("failed to convert %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: m}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}
