package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// The evaluation path converts values between Go, JSON and Rego once each:
// a VM's input is built as a Rego value straight from VMInput (no JSON round
// trip), and a result is written as JSON straight from the Rego value
// (rego.EvalGenerateJSON keeps OPA from building a map[string]any first).
// Both conversions give what the JSON path would give, so a replay, which
// reads the logged JSON input, evaluates the same value.

// vmInputValue is in as the Rego value its JSON encoding decodes to: the
// same fields, with the same omissions, and numbers written as
// encoding/json writes them.
func vmInputValue(in VMInput) ast.Value {
	terms := make([][2]*ast.Term, 0, 9)
	add := func(k string, v *ast.Term) { terms = append(terms, [2]*ast.Term{ast.StringTerm(k), v}) }
	add("name", ast.StringTerm(in.Name))
	add("cpuMilli", ast.NumberTerm(json.Number(strconv.FormatInt(in.CPUMilli, 10))))
	add("memoryMiB", ast.NumberTerm(json.Number(strconv.FormatInt(in.MemoryMiB, 10))))
	if in.OriginRegion != "" {
		add("originRegion", ast.StringTerm(in.OriginRegion))
	}
	if in.MaxLatencyMs != 0 {
		add("maxLatencyMs", ast.NumberTerm(jsonFloat(in.MaxLatencyMs)))
	}
	if in.Residency != "" {
		add("residency", ast.StringTerm(in.Residency))
	}
	if len(in.Providers) > 0 {
		ps := make([]*ast.Term, len(in.Providers))
		for i, p := range in.Providers {
			ps[i] = ast.StringTerm(p)
		}
		add("providers", ast.ArrayTerm(ps...))
	}
	if in.Provider != "" {
		add("provider", ast.StringTerm(in.Provider))
	}
	if in.Region != "" {
		add("region", ast.StringTerm(in.Region))
	}
	return ast.NewObject(terms...)
}

// jsonFloat writes f as encoding/json does.
func jsonFloat(f float64) json.Number {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		// encoding/json refuses these, and so does the JSON input path.
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	b, _ := json.Marshal(f)
	return json.Number(b)
}

// asTerm makes OPA hand back a result as the Rego term it computed, instead
// of converting it to map[string]any: the engine writes the JSON itself
// (appendJSON) and reads the VM decision straight from the term.
var asTerm = rego.EvalGenerateJSON(func(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil })

// appendJSON appends v as JSON. Sets are written as arrays, sorted, as OPA
// writes them; an object key that is not a string is refused, as JSON has
// none.
func appendJSON(b []byte, v ast.Value) ([]byte, error) {
	w := jsonWriter{b: b}
	w.value(v)
	return w.b, w.err
}

// jsonWriter writes JSON into b; the first error stops it.
type jsonWriter struct {
	b   []byte
	err error
	n   int // elements written of the array or object being written
}

func (w *jsonWriter) value(v ast.Value) {
	if w.err != nil {
		return
	}
	switch v := v.(type) {
	case ast.Null:
		w.b = append(w.b, "null"...)
	case ast.Boolean:
		w.b = strconv.AppendBool(w.b, bool(v))
	case ast.Number:
		w.b = append(w.b, v...)
	case ast.String:
		w.b = appendString(w.b, string(v))
	case *ast.Array:
		w.b = append(w.b, '[')
		for i := range v.Len() {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.value(v.Elem(i).Value)
		}
		w.b = append(w.b, ']')
	case ast.Set:
		w.b = append(w.b, '[')
		outer := w.n
		w.n = 0
		v.Foreach(w.element)
		w.n = outer
		w.b = append(w.b, ']')
	case ast.Object:
		w.b = append(w.b, '{')
		outer := w.n
		w.n = 0
		v.Foreach(w.member)
		w.n = outer
		w.b = append(w.b, '}')
	default:
		w.err = fmt.Errorf("a %T value has no JSON form", v)
	}
}

func (w *jsonWriter) element(t *ast.Term) {
	if w.n++; w.n > 1 {
		w.b = append(w.b, ',')
	}
	w.value(t.Value)
}

func (w *jsonWriter) member(k, v *ast.Term) {
	s, ok := k.Value.(ast.String)
	if !ok {
		if w.err == nil {
			w.err = fmt.Errorf("object key %v is not a string", k)
		}
		return
	}
	if w.n++; w.n > 1 {
		w.b = append(w.b, ',')
	}
	w.b = appendString(w.b, string(s))
	w.b = append(w.b, ':')
	w.value(v.Value)
}

// appendString appends s as a JSON string, escaping as encoding/json does
// (without its HTML escaping, which a decision log does not need).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
