package sharing_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/sharing"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// apiCase is one object the API server must accept (no wantFields) or
// refuse with messages naming every field in wantFields. Validate, the
// agent's own check of a message, must name the same fields. goOnly marks
// a rule only Validate checks (a quantity's sign inside a list, which CEL
// cannot afford): the API server accepts the object and Validate refuses
// it.
type apiCase struct {
	name       string
	obj        client.Object
	wantFields []string
	goOnly     bool
}

// TestAPIValidation creates valid and invalid objects of every kind in a
// real API server with the generated CRDs installed.
func TestAPIValidation(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client

	var cases []apiCase
	cases = append(cases, peerCases()...)
	cases = append(cases, advertisementCases()...)
	cases = append(cases, reservationCases()...)
	cases = append(cases, auctionCases()...)

	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.obj.SetNamespace("default")
			tc.obj.SetName("case-" + strconv.Itoa(i))
			err := c.Create(t.Context(), tc.obj, client.FieldValidation("Strict"))
			if len(tc.wantFields) == 0 || tc.goOnly {
				if err != nil {
					t.Fatalf("valid object was refused: %v", err)
				}
			} else {
				if err == nil {
					t.Fatalf("invalid object was accepted; want refusal naming %v", tc.wantFields)
				}
				for _, f := range tc.wantFields {
					if !strings.Contains(err.Error(), f) {
						t.Errorf("refusal does not name %q: %v", f, err)
					}
				}
			}
			{
				typed := tc.obj
				var got []string
				for _, e := range sharing.Validate(typed) {
					got = append(got, e.Field)
				}
				if diff := cmp.Diff(tc.wantFields, got, cmpSortedStrings); diff != "" {
					t.Errorf("Validate disagrees with the API server on the fields (-want +got):\n%s", diff)
				}
			}
		})
	}

	// A quantity written as a YAML number (cpu: 4) reaches CEL as an int;
	// the rules must accept it as they accept "4".
	t.Run("advertisement with integer quantities", func(t *testing.T) {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "sharing.meridian.dev/v1alpha1",
			"kind":       "Advertisement",
			"metadata":   map[string]any{"name": "integers", "namespace": "default"},
			"spec": map[string]any{
				"clusterID":  "provider-a",
				"consumer":   "consumer-a",
				"timestamp":  "2026-11-24T10:00:00Z",
				"timeToLive": "30m",
				"availability": []any{map[string]any{
					"name": "4cpu-16gi", "count": int64(3),
					"resources": map[string]any{"cpu": int64(4), "memory": "16Gi", "pods": int64(110)},
				}},
			},
		}}
		if err := c.Create(t.Context(), u); err != nil {
			t.Fatalf("advertisement with integer quantities was refused: %v", err)
		}
		u.Object["metadata"] = map[string]any{"name": "no-memory", "namespace": "default"}
		shape := u.Object["spec"].(map[string]any)["availability"].([]any)[0].(map[string]any)
		shape["resources"] = map[string]any{"cpu": int64(4)}
		err := c.Create(t.Context(), u)
		if err == nil || !strings.Contains(err.Error(), "spec.availability[0].resources") {
			t.Fatalf("want a refusal naming spec.availability[0].resources for a shape without memory, got %v", err)
		}
	})
}

var cmpSortedStrings = cmp.Transformer("sorted", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
})

var (
	t0 = metav1.NewTime(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	q  = resource.MustParse
)

func rl(cpu, mem string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: q(cpu), corev1.ResourceMemory: q(mem)}
}
