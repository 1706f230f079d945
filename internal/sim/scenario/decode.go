package scenario

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Error is a problem with one field of a scenario file.
type Error struct {
	File   string
	Line   int
	Column int
	// Field is the path of the field, as in clusters[1].nodes[0].cpu.
	Field string
	Err   error
}

func (e *Error) Error() string {
	field := e.Field
	if field == "" {
		field = "(document)"
	}
	return fmt.Sprintf("%s:%d:%d: %s: %v", e.File, e.Line, e.Column, field, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// decoder turns yaml nodes into Go values, recording where each field path
// was found.
type decoder struct {
	file      string
	positions map[string]*yaml.Node
	errs      []error
}

func (d *decoder) fail(n *yaml.Node, path string, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.file, Line: n.Line, Column: n.Column, Field: path, Err: fmt.Errorf(format, args...)})
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	quantityType = reflect.TypeFor[resource.Quantity]()
)

// decode fills v (addressable) from n.
func (d *decoder) decode(n *yaml.Node, path string, v reflect.Value) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return
		}
		d.decode(n.Content[0], path, v)
		return
	}
	d.positions[path] = n
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	switch {
	case v.Type() == durationType:
		d.duration(n, path, v)
		return
	case v.Type() == quantityType:
		d.quantity(n, path, v)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, path, v.Elem())
	case reflect.Struct:
		d.structure(n, path, v)
	case reflect.Map:
		d.mapping(n, path, v)
	case reflect.Slice:
		d.sequence(n, path, v)
	default:
		d.scalar(n, path, v)
	}
}

func (d *decoder) expect(n *yaml.Node, path string, kind yaml.Kind, what string) bool {
	if n.Kind == kind {
		return true
	}
	d.fail(n, path, "want %s, got %s", what, describe(n))
	return false
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func (d *decoder) structure(n *yaml.Node, path string, v reflect.Value) {
	if !d.expect(n, path, yaml.MappingNode, "a mapping") {
		return
	}
	fields := map[string]int{}
	var names []string
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = i
		names = append(names, name)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := join(path, k.Value)
		idx, ok := fields[k.Value]
		switch {
		case !ok:
			d.fail(k, p, "unknown field (valid fields: %s)", strings.Join(names, ", "))
			continue
		case seen[k.Value]:
			d.fail(k, p, "field given twice")
			continue
		}
		seen[k.Value] = true
		d.decode(val, p, v.Field(idx))
	}
}

func (d *decoder) mapping(n *yaml.Node, path string, v reflect.Value) {
	if !d.expect(n, path, yaml.MappingNode, "a mapping") {
		return
	}
	if v.Type().Key().Kind() != reflect.String {
		d.fail(n, path, "internal error: map key %v is not a string", v.Type().Key())
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := join(path, k.Value)
		if v.MapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key())).IsValid() {
			d.fail(k, p, "key given twice")
			continue
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, p, elem)
		v.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), elem)
	}
}

func (d *decoder) sequence(n *yaml.Node, path string, v reflect.Value) {
	if !d.expect(n, path, yaml.SequenceNode, "a list") {
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, fmt.Sprintf("%s[%d]", path, i), s.Index(i))
	}
	v.Set(s)
}

func (d *decoder) scalar(n *yaml.Node, path string, v reflect.Value) {
	if !d.expect(n, path, yaml.ScalarNode, "a single value") {
		return
	}
	s := n.Value
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			d.fail(n, path, "%q: not a boolean (want true or false)", s)
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if err != nil {
			d.fail(n, path, "%q: not an integer%s", s, rangeHint(err))
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		i, err := strconv.ParseUint(s, 10, v.Type().Bits())
		if err != nil {
			d.fail(n, path, "%q: not a non-negative integer%s", s, rangeHint(err))
			return
		}
		v.SetUint(i)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil {
			d.fail(n, path, "%q: not a number", s)
			return
		}
		// ParseFloat reads "NaN" and "Inf", which no check of a range
		// refuses (NaN < 0 is false).
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.fail(n, path, "%q: not a finite number", s)
			return
		}
		v.SetFloat(f)
	default:
		d.fail(n, path, "internal error: cannot decode into %v", v.Type())
	}
}

func rangeHint(err error) string {
	if errors.Is(err, strconv.ErrRange) {
		return " in range"
	}
	return ""
}

func (d *decoder) duration(n *yaml.Node, path string, v reflect.Value) {
	if !d.expect(n, path, yaml.ScalarNode, "a duration") {
		return
	}
	dur, err := time.ParseDuration(n.Value)
	if err != nil {
		d.fail(n, path, "%q: not a duration (want e.g. 90s, 5m, 1h30m)", n.Value)
		return
	}
	if dur < 0 {
		d.fail(n, path, "%q: must not be negative", n.Value)
		return
	}
	v.SetInt(int64(dur))
}

func (d *decoder) quantity(n *yaml.Node, path string, v reflect.Value) {
	if !d.expect(n, path, yaml.ScalarNode, "a quantity") {
		return
	}
	q, err := resource.ParseQuantity(n.Value)
	if err != nil || q.Sign() < 0 {
		d.fail(n, path, "%q: not a quantity (want e.g. 2, 500m, 16Gi)", n.Value)
		return
	}
	v.Set(reflect.ValueOf(q))
}

// position returns the node recorded for path, or for its longest recorded
// prefix (a missing field is reported where its parent is).
func (d *decoder) position(path string) *yaml.Node {
	for p := path; ; {
		if n, ok := d.positions[p]; ok {
			return n
		}
		i := max(strings.LastIndexAny(p, ".["), 0)
		if i == 0 {
			if n, ok := d.positions[""]; ok {
				return n
			}
			return &yaml.Node{Line: 1, Column: 1}
		}
		p = p[:i]
	}
}

// fieldErrors turns validation problems into positioned errors, in order.
func (d *decoder) fieldErrors(problems []problem) []error {
	out := slices.Clone(d.errs)
	for _, p := range problems {
		n := d.position(p.path)
		out = append(out, &Error{File: d.file, Line: n.Line, Column: n.Column, Field: p.path, Err: p.err})
	}
	return out
}

// problem is a validation failure at a field path.
type problem struct {
	path string
	err  error
}
