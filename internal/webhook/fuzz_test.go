package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/meridian-dev/meridian/internal/scheme"
)

// review wraps a CloudVM's spec (any bytes) in an AdmissionReview of op.
func review(op string, spec []byte) []byte {
	obj := []byte(`{"apiVersion":"compute.meridian.dev/v1alpha1","kind":"CloudVM","metadata":{"name":"fuzz","namespace":"default"},"spec":`)
	obj = append(append(obj, spec...), '}')
	var b bytes.Buffer
	b.WriteString(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"00000000-0000-0000-0000-000000000001",`)
	b.WriteString(`"kind":{"group":"compute.meridian.dev","version":"v1alpha1","kind":"CloudVM"},`)
	b.WriteString(`"resource":{"group":"compute.meridian.dev","version":"v1alpha1","resource":"cloudvms"},`)
	b.WriteString(`"name":"fuzz","namespace":"default","operation":"` + op + `","object":`)
	b.Write(obj)
	if op == "UPDATE" {
		b.WriteString(`,"oldObject":`)
		b.Write(obj)
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// FuzzAdmission feeds arbitrary AdmissionReview bodies, and arbitrary
// CloudVM specs in well-formed AdmissionReviews, to the webhook's HTTP
// handler: it must never panic, always answer with an AdmissionReview, and
// explain every refusal. The seed corpus in testdata/fuzz runs as a normal
// test under go test.
func FuzzAdmission(f *testing.F) {
	f.Add([]byte(``), []byte(`{"cpu":"2","memory":"4Gi","duration":"2h"}`))
	f.Add([]byte(`{}`), []byte(`{"cpu":"0","memory":"-1","duration":"0s"}`))
	f.Add([]byte(`{"request":{}}`), []byte(`{"cpu":"2","memory":"4Gi","duration":"2h","pin":{"region":"westeurope"}}`))
	f.Add(review("CREATE", []byte(`{"cpu":"2","memory":"4Gi","duration":"2h"}`)), []byte(`null`))
	f.Add([]byte(`not json`), []byte(`{"cpu":"1e400","memory":"4Gi","duration":"99999999h"}`))

	h := NewCloudVMHandler(scheme.New(), Planner{Policies: testPolicies(f)}, func() time.Time { return now })
	wh := h.Webhook().WithRecoverPanic(false)
	post := func(t *testing.T, body []byte) {
		t.Helper()
		r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, CloudVMPath, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		wh.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("HTTP status %d, want 200 with an AdmissionReview: %s", w.Code, w.Body)
		}
		var out admissionv1.AdmissionReview
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Response == nil {
			t.Fatalf("the answer is not an AdmissionReview with a response (%v): %s", err, w.Body)
		}
		if !out.Response.Allowed && (out.Response.Result == nil || out.Response.Result.Message == "") {
			t.Fatalf("refused without a message: %s", w.Body)
		}
	}
	f.Fuzz(func(t *testing.T, body, spec []byte) {
		post(t, body)
		post(t, review("CREATE", spec))
		post(t, review("UPDATE", spec))
	})
}
