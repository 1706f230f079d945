package testenv

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ReadManifests decodes every object of a multi-document YAML file, with
// integers as int64 as the API server returns them.
func ReadManifests(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var objs []*unstructured.Unstructured
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("failed to read %s: %v", path, err)
		}
		js, err := utilyaml.ToJSON(doc)
		if err != nil {
			t.Fatalf("failed to decode %s: %v", path, err)
		}
		if string(bytes.TrimSpace(js)) == "null" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			t.Fatalf("failed to decode %s: %v", path, err)
		}
		objs = append(objs, u)
	}
}
