package config_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// dashboard is the part of a Grafana dashboard's JSON model the test reads.
type dashboard struct {
	Title  string  `json:"title"`
	UID    string  `json:"uid"`
	Panels []panel `json:"panels"`
}

type panel struct {
	Title   string `json:"title"`
	Type    string `json:"type"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Datasource struct {
		UID string `json:"uid"`
	} `json:"datasource"`
}

// meridianMetric matches the names of Meridian's metrics in PromQL.
var meridianMetric = regexp.MustCompile(`\bmeridian_[a-z0-9_]+`)

// TestGrafanaDashboardsQueryExportedMetrics reads every dashboard in
// grafana/ and checks that each panel queries something and that every
// metric a query names is one Meridian's code defines (the Name of a
// prometheus.*Opts literal in a non-test file), histograms' _bucket, _sum
// and _count series included.
func TestGrafanaDashboardsQueryExportedMetrics(t *testing.T) {
	exported := definedMetrics(t, "../internal", "../cmd")
	if len(exported) == 0 {
		t.Fatal("found no metric definitions in internal/ and cmd/")
	}
	paths, err := filepath.Glob("grafana/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no dashboards in config/grafana (%v)", err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var d dashboard
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if d.Title == "" || d.UID == "" {
			t.Errorf("%s: a dashboard needs a title and a uid", path)
		}
		used := map[string]bool{}
		for _, p := range d.Panels {
			if p.Type == "row" {
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q queries nothing", path, p.Title)
			}
			if p.Datasource.UID != "${datasource}" {
				t.Errorf("%s: panel %q reads datasource %q, want the dashboard's variable ${datasource}", path, p.Title, p.Datasource.UID)
			}
			for _, target := range p.Targets {
				names := meridianMetric.FindAllString(target.Expr, -1)
				if len(names) == 0 {
					t.Errorf("%s: panel %q: query %q reads no Meridian metric", path, p.Title, target.Expr)
				}
				for _, n := range names {
					if !exported[seriesOf(n, exported)] {
						t.Errorf("%s: panel %q queries %s, which Meridian does not export", path, p.Title, n)
					}
					used[seriesOf(n, exported)] = true
				}
			}
		}
		var unused []string
		for n := range exported {
			if !used[n] {
				unused = append(unused, n)
			}
		}
		slices.Sort(unused)
		t.Logf("%s: %d panels read %d of Meridian's %d metrics; not shown: %s", path, len(d.Panels), len(used), len(exported), strings.Join(unused, ", "))
	}
}

// seriesOf returns the metric a series name belongs to: a histogram's or
// summary's _bucket, _sum and _count series belong to the metric without
// the suffix.
func seriesOf(name string, exported map[string]bool) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && exported[base] {
			return base
		}
	}
	return name
}

// definedMetrics returns the Name of every prometheus.*Opts composite
// literal in the non-test Go files under dirs.
func definedMetrics(t *testing.T, dirs ...string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				sel, ok := lit.Type.(*ast.SelectorExpr)
				if !ok || !strings.HasSuffix(sel.Sel.Name, "Opts") {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "prometheus" {
					return true
				}
				for _, el := range lit.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "Name" {
						if s, ok := kv.Value.(*ast.BasicLit); ok && s.Kind == token.STRING {
							if v, err := strconv.Unquote(s.Value); err == nil {
								names[v] = true
							}
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return names
}
