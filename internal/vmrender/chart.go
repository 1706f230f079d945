package vmrender

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/meridian-dev/meridian/charts"
)

// chartDir is the chart's folder in charts.CloudVM.
const chartDir = "cloudvm"

// cloudVMChart loads the embedded chart once; it cannot change while the
// binary runs.
var cloudVMChart = sync.OnceValues(func() (*chart.Chart, error) {
	return loadChart(charts.CloudVM, chartDir)
})

// loadChart loads the chart in folder dir of fsys.
func loadChart(fsys fs.FS, dir string) (*chart.Chart, error) {
	var files []*archive.BufferedFile
	err := fs.WalkDir(fsys, dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		files = append(files, &archive.BufferedFile{Name: strings.TrimPrefix(path, dir+"/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("failed to read the embedded %s chart: %w", dir, err)
	}
	c, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("failed to load the embedded %s chart: %w", dir, err)
	}
	return c, nil
}

// renderChart renders c for release name in namespace with vals, checks
// vals against the chart's values.schema.json, and decodes every rendered
// document, in the order of the template files' names and of the documents
// in each file.
func renderChart(c *chart.Chart, name, namespace string, vals map[string]any) ([]*unstructured.Unstructured, error) {
	opts := common.ReleaseOptions{Name: name, Namespace: namespace, IsInstall: true}
	top, err := chartutil.ToRenderValues(c, vals, opts, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to prepare the values of chart %s: %w", c.Name(), err)
	}
	// A zero Engine has no cluster access: lookup would return nothing, so
	// the templates never call it. Strict fails on a value the templates
	// name but the values lack.
	rendered, err := engine.Engine{Strict: true}.Render(c, top)
	if err != nil {
		return nil, fmt.Errorf("failed to render chart %s: %w", c.Name(), err)
	}
	paths := make([]string, 0, len(rendered))
	for path := range rendered {
		if strings.HasSuffix(path, ".yaml") {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	var objs []*unstructured.Unstructured
	for _, path := range paths {
		decoded, err := decodeDocuments(rendered[path])
		if err != nil {
			return nil, fmt.Errorf("failed to decode %s: %w", path, err)
		}
		objs = append(objs, decoded...)
	}
	return objs, nil
}

// decodeDocuments decodes each non-empty YAML document of manifest.
func decodeDocuments(manifest string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal(doc, &obj.Object); err != nil {
			return nil, err
		}
		if len(obj.Object) == 0 {
			continue // only comments
		}
		if obj.GetAPIVersion() == "" || obj.GetKind() == "" || obj.GetName() == "" {
			return nil, fmt.Errorf("document has no apiVersion, kind or name:\n%s", doc)
		}
		objs = append(objs, obj)
	}
}
