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
	Invalid    []string           `json:"invalid"`
	Candidates []carbon.Candidate `json:"candidates"`
	Steps      []VMStep           `json:"steps"`
	Removed    []VMRemoval        `json:"removed"`
}

// VM decides which regions a VM may go to: it evaluates VMQuery with in on
// the current revision and logs the decision. Input the policies cannot use
// (an unknown provider, region or jurisdiction, a size that is not positive)
// returns the decision and an error wrapping ErrInvalidInput that names each
// field and its valid values. No candidate left is not an error: the
// decision's Removed says why each region went.
func (e *Engine) VM(ctx context.Context, in VMInput) (VMDecision, error) {
	var doc vmDocument
	raw, inputErr := json.Marshal(in)
	var parsed ast.Value
	if inputErr == nil {
		parsed = vmInputValue(in)
	}
	d, err := e.evaluate(ctx, VMQuery, raw, parsed, inputErr, func(result json.RawMessage) string {
		if err := json.Unmarshal(result, &doc); err != nil {
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
	if doc.Steps == nil {
		// The outcome function did not run or could not decode the result.
		if err := json.Unmarshal(d.Result, &doc); err != nil {
			return out, fmt.Errorf("failed to read the VM decision of bundle revision %q: %w", d.Revision, err)
		}
	}
	out.Candidates, out.Steps, out.Removed = doc.Candidates, doc.Steps, doc.Removed
	if len(doc.Invalid) > 0 {
		return out, fmt.Errorf("%w: VM %q: %s", ErrInvalidInput, in.Name, strings.Join(doc.Invalid, "; "))
	}
	return out, nil
}
