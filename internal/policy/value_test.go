package policy

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"
)

// TestVMInputValue checks that the Rego value built from a VMInput is the
// one its JSON decodes to, so that a replay of the logged JSON evaluates
// the same input.
func TestVMInputValue(t *testing.T) {
	tests := []struct {
		name string
		in   VMInput
	}{
		{name: "needs only", in: VMInput{Name: "ns/a", CPUMilli: 2000, MemoryMiB: 8192}},
		{name: "zero", in: VMInput{}},
		{name: "every field", in: VMInput{Name: "ns/b", CPUMilli: 1500, MemoryMiB: 3072, OriginRegion: "westeurope", MaxLatencyMs: 7.5,
			Residency: "EU", Providers: []string{"azure", "gcp"}, Provider: "azure", Region: "westeurope"}},
		{name: "large and small numbers", in: VMInput{CPUMilli: -1, MemoryMiB: 1 << 50, MaxLatencyMs: 1e21}},
		{name: "tiny latency", in: VMInput{MaxLatencyMs: 1e-7}},
		{name: "strings to escape", in: VMInput{Name: "ns/\"q\"\\\n\t\u2028é\x01", OriginRegion: "<&>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := parseInput("test", raw)
			if err != nil {
				t.Fatal(err)
			}
			got := vmInputValue(tc.in)
			if want.Compare(got) != 0 {
				t.Errorf("vmInputValue = %v, want %v (from %s)", got, want, raw)
			}
		})
	}
}

// TestAppendJSON checks that a Rego value is written as the JSON
// encoding/json writes for OPA's own conversion of it.
func TestAppendJSON(t *testing.T) {
	for _, src := range []string{
		`{"a": [1, 2.5, -3e-7, 12345678901234567890], "b": {"c": null, "d": true, "e": false}, "f": "x\"y\\z\n\t\u0001é\u2028<>&"}`,
		`{"s": {"b", "a", "c"}, "empty": [], "o": {}}`,
		`"plain"`,
	} {
		t.Run(src, func(t *testing.T) {
			v := ast.MustParseTerm(src).Value
			got, err := appendJSON(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := ast.JSON(v)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("appendJSON wrote invalid JSON %s: %v", got, err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("appendJSON (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := appendJSON(nil, ast.MustParseTerm(`{1: "a"}`).Value); err == nil {
		t.Error("appendJSON of an object with a number key: no error")
	}
}
