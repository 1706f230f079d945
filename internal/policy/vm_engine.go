package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/meridian-dev/meridian/internal/carbon"
)

var _ VMPolicies = &Engine{}

// vmDocument is the decision document data.meridian.vm.decision returns.
type vmDocument struct {
	Invalid          []string           `json:"invalid"`
	Candidates       []carbon.Candidate `json:"candidates"`
	Steps            []VMStep           `json:"steps"`
	Removed          []VMRemoval        `json:"removed"`
	UnverifiedPrices []string           `json:"unverifiedPrices"`
}

// VM decides which regions a VM may go to: it evaluates VMQuery with in on
// the current revision and logs the decision. Input the policies cannot use
// (an unknown provider, region or jurisdiction, a size that is not positive)
// returns the decision and an error wrapping ErrInvalidInput that names each
// field and its valid values. No candidate left is not an error: the
// decision's Removed says why each region went.
func (e *Engine) VM(ctx context.Context, in VMInput) (VMDecision, error) {
	var (
		doc     vmDocument
		readErr error
	)
	raw, inputErr := json.Marshal(in)
	var parsed ast.Value
	if inputErr == nil {
		parsed = vmInputValue(in)
	}
	d, _, err := e.evaluate(ctx, VMQuery, raw, parsed, inputErr, func(result ast.Value) string {
		if doc, readErr = readVMDocument(result); readErr != nil {
			return "error"
		}
		switch {
		case len(doc.Invalid) > 0:
			return "invalid"
		case len(doc.Candidates) == 0:
			return "no_candidates"
		}
		return "ok"
	})
	out := VMDecision{Revision: d.Revision, DecisionID: d.ID}
	if err != nil {
		return out, fmt.Errorf("failed to decide the regions of VM %q: %w", in.Name, err)
	}
	if readErr != nil {
		return out, fmt.Errorf("failed to read the VM decision of bundle revision %q: %w", d.Revision, readErr)
	}
	out.Candidates, out.Steps, out.Removed, out.UnverifiedPrices = doc.Candidates, doc.Steps, doc.Removed, doc.UnverifiedPrices
	if len(doc.Invalid) > 0 {
		return out, fmt.Errorf("%w: VM %q: %s", ErrInvalidInput, in.Name, strings.Join(doc.Invalid, "; "))
	}
	return out, nil
}

// readVMDocument reads the decision document straight from the Rego value.
// A document of another shape (a bundle of another version) is read through
// its JSON, as encoding/json reads it.
func readVMDocument(v ast.Value) (vmDocument, error) {
	var r docReader
	doc := r.document(v)
	if r.failed {
		doc = vmDocument{}
		b, err := appendJSON(nil, v)
		if err == nil {
			err = json.Unmarshal(b, &doc)
		}
		return doc, err
	}
	return doc, nil
}

// docKeys are the terms of the document's keys, built once.
var docKeys = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
	for _, k := range []string{"invalid", "candidates", "steps", "removed", "unverifiedPrices",
		"provider", "region", "zone", "instanceType", "pricePerHour", "latencyMs", "policy", "left", "reason"} {
		m[k] = ast.StringTerm(k)
	}
	return m
}()

// docReader reads the VM decision document from a Rego value; failed is set
// when the value does not have the shape the reader expects.
type docReader struct{ failed bool }

func (r *docReader) document(v ast.Value) vmDocument {
	obj := r.object(v)
	return vmDocument{
		Invalid:          r.strings(obj, "invalid"),
		Candidates:       listOf(r, obj, "candidates", r.candidate),
		Steps:            listOf(r, obj, "steps", r.step),
		Removed:          listOf(r, obj, "removed", r.removal),
		UnverifiedPrices: r.strings(obj, "unverifiedPrices"),
	}
}

func (r *docReader) candidate(v ast.Value) carbon.Candidate {
	obj := r.object(v)
	return carbon.Candidate{
		Provider:     r.string(obj, "provider"),
		Region:       r.string(obj, "region"),
		Zone:         r.string(obj, "zone"),
		InstanceType: r.string(obj, "instanceType"),
		PricePerHour: r.number(obj, "pricePerHour"),
		LatencyMs:    r.number(obj, "latencyMs"),
	}
}

func (r *docReader) step(v ast.Value) VMStep {
	obj := r.object(v)
	return VMStep{Policy: r.string(obj, "policy"), Left: r.strings(obj, "left")}
}

func (r *docReader) removal(v ast.Value) VMRemoval {
	obj := r.object(v)
	return VMRemoval{Provider: r.string(obj, "provider"), Region: r.string(obj, "region"), Policy: r.string(obj, "policy"), Reason: r.string(obj, "reason")}
}

func (r *docReader) object(v ast.Value) ast.Object {
	obj, ok := v.(ast.Object)
	if !ok {
		r.failed = true
	}
	return obj
}

// field is obj[key]; nil when obj is not an object or has no key.
func (r *docReader) field(obj ast.Object, key string) ast.Value {
	if obj == nil {
		return nil
	}
	k, ok := docKeys[key]
	if !ok {
		k = ast.StringTerm(key)
	}
	t := obj.Get(k)
	if t == nil {
		return nil
	}
	return t.Value
}

func (r *docReader) string(obj ast.Object, key string) string {
	switch v := r.field(obj, key).(type) {
	case ast.String:
		return string(v)
	case nil:
		return ""
	}
	r.failed = true
	return ""
}

func (r *docReader) number(obj ast.Object, key string) float64 {
	switch v := r.field(obj, key).(type) {
	case ast.Number:
		f, err := json.Number(v).Float64()
		if err != nil {
			r.failed = true
		}
		return f
	case nil:
		return 0
	}
	r.failed = true
	return 0
}

func (r *docReader) strings(obj ast.Object, key string) []string {
	return listOf(r, obj, key, func(v ast.Value) string {
		s, ok := v.(ast.String)
		if !ok {
			r.failed = true
		}
		return string(s)
	})
}

// listOf reads the array obj[key] with read; nil when there is none.
func listOf[T any](r *docReader, obj ast.Object, key string, read func(ast.Value) T) []T {
	switch v := r.field(obj, key).(type) {
	case *ast.Array:
		out := make([]T, v.Len())
		for i := range out {
			out[i] = read(v.Elem(i).Value)
		}
		return out
	case nil:
		return nil
	}
	r.failed = true
	return nil
}
