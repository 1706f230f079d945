package sharing_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/sharing"
)

func TestDecode(t *testing.T) {
	adv, err := os.ReadFile(filepath.Join("testdata", "advertisement.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		data    string
		wantErr []string // substrings the error must contain; nil means success
	}{
		{name: "advertisement", data: string(adv)},
		{name: "not YAML", data: "{{", wantErr: []string{"failed to read message"}},
		{name: "other API group", data: "apiVersion: v1\nkind: Pod\n", wantErr: []string{"apiVersion", `"v1"`, "sharing.meridian.dev/v1alpha1"}},
		{name: "unknown kind", data: "apiVersion: sharing.meridian.dev/v1alpha1\nkind: Bid\n", wantErr: []string{"kind", `"Bid"`, "Advertisement"}},
		{name: "unknown field", data: strings.Replace(string(adv), "  region:", "  regoin:", 1), wantErr: []string{`unknown field "regoin"`}},
		{name: "wrong type", data: strings.Replace(string(adv), "count: 3", "count: three", 1), wantErr: []string{"spec.availability.count"}},
		{name: "invalid value", data: strings.Replace(string(adv), "timeToLive: 30m", "timeToLive: 48h", 1), wantErr: []string{"spec.timeToLive", "at most 24h"}},
		{name: "negative quantity", data: strings.Replace(string(adv), "cpu: 4,", "cpu: -4,", 1), wantErr: []string{"spec.availability[0].resources", "negative"}},
		{name: "partial with prices", data: strings.Replace(string(adv), "type: Full", "type: Partial", 1), wantErr: []string{"spec.type", "Partial"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sharing.Decode([]byte(tc.data))
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Decode accepted it; want an error naming %v", tc.wantErr)
			}
			for _, s := range tc.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

// FuzzDecode decodes advertisements and auction messages: Decode must not
// panic, must explain every refusal, and what it accepts must be valid and
// decode to the same object after encoding.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds in testdata: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"sharing.meridian.dev/v1alpha1","kind":"Advertisement","spec":{"availability":[{"resources":{"cpu":"1e100"}}]}}`))
	f.Add([]byte("apiVersion: sharing.meridian.dev/v1alpha1\nkind: Offer\nspec: [1, 2]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := sharing.Decode(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Decode refused %q with an empty error", data)
			}
			return
		}
		if errs := sharing.Validate(obj); len(errs) > 0 {
			t.Fatalf("Decode accepted an invalid object: %v", errs)
		}
		js, err := json.Marshal(obj)
		if err != nil {
			t.Fatalf("failed to encode what Decode accepted: %v", err)
		}
		again, err := sharing.Decode(js)
		if err != nil {
			t.Fatalf("Decode refused its own output %s: %v", js, err)
		}
		if diff := cmp.Diff(obj, again, cmpQuantity); diff != "" {
			t.Errorf("object changed through encode and decode (-first +second):\n%s", diff)
		}
	})
}
