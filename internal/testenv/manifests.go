package testenv

import (
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meridian-dev/meridian/internal/manifest"
)

// ReadManifests decodes every object of a multi-document YAML file
// (manifest.Read), failing t when it cannot.
func ReadManifests(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs, err := manifest.Read(f)
	if err != nil {
		t.Fatalf("failed to read %s: %v", path, err)
	}
	return objs
}
