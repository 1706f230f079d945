package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

// FuzzParse decodes scenario files, as `meridian sim --scenario file`
// does: Parse must not panic, every problem it reports is an *Error with
// the file and a position, and a scenario it accepts passes validation
// again once its defaults are set.
func FuzzParse(f *testing.F) {
	var files []string
	for _, pattern := range []string{
		filepath.Join("builtin", "*.yaml"),
		filepath.Join("testdata", "*.yaml"),
		filepath.Join("..", "..", "..", "examples", "scenarios", "*.yaml"),
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 3 {
		f.Fatalf("found %d scenario files to seed with", len(files))
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: x\nclusters: &c [{name: a, nodes: *c}]\n"))
	f.Add([]byte("duration: -5m\nclusters: [{name: a, nodes: [{count: 1, cpu: -1}]}]\n"))
	fsys := fstest.MapFS{}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml", fs.FS(fsys), ".")
		if err != nil {
			var errs []error
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			} else {
				errs = []error{err}
			}
			for _, e := range errs {
				var se *Error
				if !errors.As(e, &se) {
					t.Fatalf("a problem that is not a *scenario.Error: %v", e)
				}
				if se.File != "fuzz.yaml" || se.Line < 1 || se.Column < 1 || se.Err == nil {
					t.Fatalf("a problem without its file and position: %#v", se)
				}
			}
			return
		}
		if problems := validate(s); len(problems) > 0 {
			t.Fatalf("an accepted scenario is invalid once its defaults are set: %v", problems)
		}
		if path := nonFinite(reflect.ValueOf(s).Elem(), ""); path != "" {
			t.Fatalf("an accepted scenario holds a number that is not finite at %s", path)
		}
	})
}

// nonFinite returns the path of the first NaN or infinite float in v, or "".
func nonFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return nonFinite(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if p := nonFinite(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
					return p
				}
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if p := nonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if p := nonFinite(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); p != "" {
				return p
			}
		}
	}
	return ""
}
