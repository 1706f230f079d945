package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/money"
)

var _ VMPolicies = &Engine{}

// vmDocument is the decision document data.meridian.vm.decision returns.
type vmDocument struct {
	Invalid          []string           `json:"invalid"`
	Candidates       []carbon.Candidate `json:"-"`
	Steps            []VMStep           `json:"steps"`
	Removed          []VMRemoval        `json:"removed"`
	UnverifiedPrices []string           `json:"unverifiedPrices"`
}

// candidateDoc is a candidate as the policies write it: the price a JSON
// number beside its currency, read exactly.
type candidateDoc struct {
	Provider     string      `json:"provider"`
	Region       string      `json:"region"`
	Zone         string      `json:"zone"`
	InstanceType string      `json:"instanceType"`
	PricePerHour json.Number `json:"pricePerHour"`
	Currency     string      `json:"currency"`
	LatencyMs    float64     `json:"latencyMs"`
}

// candidate is c for the scheduler; an error names the policy data's
// currency when the price has none.
func (c candidateDoc) candidate() (carbon.Candidate, error) {
	out := carbon.Candidate{Provider: c.Provider, Region: c.Region, Zone: c.Zone, InstanceType: c.InstanceType, LatencyMs: c.LatencyMs}
	if c.PricePerHour == "" {
		return out, nil
	}
	price, err := money.Parse(c.PricePerHour.String(), c.Currency)
	if err != nil {
		return out, fmt.Errorf("candidate %s/%s: pricePerHour %s: %w (data.meridian.clouds.instances.%s.currency names the currency of the provider's prices)",
			c.Provider, c.Region, c.PricePerHour, err, c.Provider)
	}
	out.PricePerHour = price
	return out, nil
}

// oneCurrency is nil when every priced candidate is in one currency, which
// the scheduler needs to compare them; else an error naming the policy
// data's field.
func oneCurrency(cs []carbon.Candidate) error {
	first := -1
	for i, c := range cs {
		switch {
		case c.PricePerHour.Currency() == "":
		case first < 0:
			first = i
		case !c.PricePerHour.Compatible(cs[first].PricePerHour):
			return fmt.Errorf("candidates %s/%s and %s/%s are priced in %s and %s, which the scheduler cannot compare: data.meridian.clouds.instances.<provider>.currency must be one currency for every provider: %w",
				cs[first].Provider, cs[first].Region, c.Provider, c.Region, cs[first].PricePerHour.Currency(), c.PricePerHour.Currency(), money.ErrMixedCurrencies)
		}
	}
	return nil
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
	if readErr == nil {
		readErr = oneCurrency(doc.Candidates)
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
	if r.err != nil {
		return vmDocument{}, r.err
	}
	if r.failed {
		b, err := appendJSON(nil, v)
		if err != nil {
			return vmDocument{}, err
		}
		return decodeVMDocument(b)
	}
	return doc, nil
}

// DecodeVMDecision reads a decision document's JSON, as the decision log
// keeps it, into a VMDecision: its candidates' prices are read exactly, and
// candidates priced in two currencies are refused as VM refuses them.
func DecodeVMDecision(raw []byte) (VMDecision, error) {
	doc, err := decodeVMDocument(raw)
	if err == nil {
		err = oneCurrency(doc.Candidates)
	}
	return VMDecision{Candidates: doc.Candidates, Steps: doc.Steps, Removed: doc.Removed, UnverifiedPrices: doc.UnverifiedPrices}, err
}

// decodeVMDocument reads the decision document from its JSON, as
// encoding/json reads it, and its candidates' prices exactly.
func decodeVMDocument(b []byte) (vmDocument, error) {
	var j struct {
		vmDocument
		Candidates []candidateDoc `json:"candidates"`
	}
	err := json.Unmarshal(b, &j)
	doc := j.vmDocument
	if j.Candidates != nil {
		doc.Candidates = make([]carbon.Candidate, 0, len(j.Candidates))
	}
	for _, c := range j.Candidates {
		cand, cerr := c.candidate()
		err = errors.Join(err, cerr)
		doc.Candidates = append(doc.Candidates, cand)
	}
	return doc, err
}

// docKeys are the terms of the document's keys, built once.
var docKeys = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
	for _, k := range []string{"invalid", "candidates", "steps", "removed", "unverifiedPrices",
		"provider", "region", "zone", "instanceType", "pricePerHour", "currency", "latencyMs", "policy", "left", "reason"} {
		m[k] = ast.StringTerm(k)
	}
	return m
}()

// docReader reads the VM decision document from a Rego value; failed is set
// when the value does not have the shape the reader expects, err when a
// price cannot be read.
type docReader struct {
	failed bool
	err    error
}

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
	c := candidateDoc{
		Provider:     r.string(obj, "provider"),
		Region:       r.string(obj, "region"),
		Zone:         r.string(obj, "zone"),
		InstanceType: r.string(obj, "instanceType"),
		PricePerHour: r.literal(obj, "pricePerHour"),
		Currency:     r.string(obj, "currency"),
		LatencyMs:    r.number(obj, "latencyMs"),
	}
	out, err := c.candidate()
	r.err = errors.Join(r.err, err)
	return out
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

// literal is the number obj[key] as it is written, to be read exactly;
// empty when there is none.
func (r *docReader) literal(obj ast.Object, key string) json.Number {
	switch v := r.field(obj, key).(type) {
	case ast.Number:
		return json.Number(v)
	case nil:
		return ""
	}
	r.failed = true
	return ""
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
