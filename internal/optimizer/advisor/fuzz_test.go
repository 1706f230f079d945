package advisor

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzAPI posts arbitrary bodies to /init and /sample of an initialized
// advisor. Every answer must be 200 or a 400 whose JSON error names what
// was wrong; a refused body must change nothing, and /advice must keep
// answering with a replica count inside the bounds.
func FuzzAPI(f *testing.F) {
	good, _ := json.Marshal(initBody("meridian", 10))
	sample, _ := json.Marshal(sampleBody([]float64{5, 40, 50}, 120, 4, time.Unix(1700000000, 0)))
	f.Add("/sample", string(sample))
	f.Add("/init", string(good))
	f.Add("/sample", `{"sample":{"vm_number":3,"input_metrics":[{"name":"AVG_RR","value":1e308},{"name":"SUM_RR","value":-1e308},{"name":"CPU","value":0}],"target_metrics":[{"name":"AVG_LAT","value":0}]}}`)
	f.Add("/sample", `{"sample":{"vm_number":9007199254740993}}`)
	f.Add("/sample", `{"sample":null}`)
	f.Add("/init", `{"constants":{"m_opt_init_training_samples_required":"1e3"},"input_metrics":[{"name":""}]}`)
	f.Add("/init", `{"constants":{"m_opt_init_advice_freeze_interval":-1}}`)
	f.Add("/sample", `[]`)
	f.Add("/init", `{"target_metrics":[{"name":"t","min_threshold":1e308,"max_threshold":-1e308}]}`)
	f.Fuzz(func(t *testing.T, path, body string) {
		if path != "/init" {
			path = "/sample"
		}
		h := NewServer(&MemStore{}, func() time.Time { return time.Unix(1700000000, 0) }).Handler()
		post := func(p, b string) *httptest.ResponseRecorder {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, p, strings.NewReader(b)))
			return rec
		}
		if rec := post("/init", string(good)); rec.Code != 200 {
			t.Fatalf("init: %d %s", rec.Code, rec.Body)
		}
		for range 12 {
			if rec := post("/sample", string(sample)); rec.Code != 200 {
				t.Fatalf("sample: %d %s", rec.Code, rec.Body)
			}
		}
		rec := post(path, body)
		switch rec.Code {
		case 200:
		case 400:
			var e Error
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("400 without a JSON error: %q", rec.Body)
			}
		default:
			t.Fatalf("status %d for %s %q: %s", rec.Code, path, body, rec.Body)
		}
		adv := httptest.NewRecorder()
		h.ServeHTTP(adv, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/advice", nil))
		var a struct {
			Valid    bool `json:"valid"`
			VMNumber int  `json:"vm_number"`
		}
		if err := json.Unmarshal(adv.Body.Bytes(), &a); err != nil {
			t.Fatalf("advice is not JSON: %v: %s", err, adv.Body)
		}
		if a.Valid && (a.VMNumber < 1 || a.VMNumber > 10_000) {
			t.Fatalf("valid advice of %d replicas", a.VMNumber)
		}
		if rec.Code == 400 && path == "/init" && (!a.Valid || a.VMNumber > 20) {
			t.Fatalf("a refused /init changed the configuration: advice %s", adv.Body)
		}
	})
}

// FuzzKnowledgeBase reads knowledge-base files, as `meridian advisor
// serve` does on POST /init with use_existing: whatever the file holds,
// /init answers 200, a 400 that names m_opt_init_knowledge_base, or (for a
// file that is not JSON) a 500; and /advice keeps its replica count inside
// the bounds.
func FuzzKnowledgeBase(f *testing.F) {
	dir := f.TempDir()
	seed := FileStore{Path: filepath.Join(dir, "kb.json")}
	h := NewServer(seed, func() time.Time { return time.Unix(1700000000, 0) }).Handler()
	good, _ := json.Marshal(initBody("meridian", 10))
	post := func(h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
		return rec
	}
	if rec := post(h, "/init", good); rec.Code != 200 {
		f.Fatalf("init: %d %s", rec.Code, rec.Body)
	}
	for i := range 12 {
		sample, _ := json.Marshal(sampleBody([]float64{5, 40, 50}, 100+float64(i), 4, time.Unix(1700000000+int64(i)*60, 0)))
		if rec := post(h, "/sample", sample); rec.Code != 200 {
			f.Fatalf("sample: %d %s", rec.Code, rec.Body)
		}
	}
	kb, err := os.ReadFile(seed.Path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(kb)
	f.Add([]byte(`{"inputs":["AVG_RR","SUM_RR","CPU"],"target":"AVG_LAT","samples":[{"replicas":-1,"inputs":[1],"target":1e300}]}`))
	f.Add([]byte(`{"inputs":[],"target":"","samples":null}`))
	body := initBody("meridian", 10)
	body["constants"].(map[string]any)["m_opt_init_knowledge_base"] = "use_existing"
	useExisting, _ := json.Marshal(body)
	f.Fuzz(func(t *testing.T, data []byte) {
		store := FileStore{Path: filepath.Join(t.TempDir(), "kb.json")}
		if err := os.WriteFile(store.Path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, loadErr := store.Load()
		h := NewServer(store, func() time.Time { return time.Unix(1700000000, 0) }).Handler()
		rec := post(h, "/init", useExisting)
		switch {
		case rec.Code == 200:
		case rec.Code == 400 && strings.Contains(rec.Body.String(), "m_opt_init_knowledge_base"):
		case rec.Code == 500 && loadErr != nil:
			return
		default:
			t.Fatalf("/init with use_existing answered %d: %s", rec.Code, rec.Body)
		}
		adv := httptest.NewRecorder()
		h.ServeHTTP(adv, httptest.NewRequest(http.MethodGet, "/advice", nil))
		var a struct {
			Valid    bool `json:"valid"`
			VMNumber int  `json:"vm_number"`
		}
		if err := json.Unmarshal(adv.Body.Bytes(), &a); err != nil {
			t.Fatalf("advice is not JSON: %v: %s", err, adv.Body)
		}
		if a.Valid && (a.VMNumber < 1 || a.VMNumber > 20) {
			t.Fatalf("valid advice of %d replicas outside 1..20", a.VMNumber)
		}
	})
}
