package advisor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/meridian-dev/meridian/internal/optimizer"
	"github.com/meridian-dev/meridian/internal/optimizer/eval"
)

// keeper plays the seed's policy keeper against a real server.
type keeper struct {
	t    *testing.T
	base string
}

func (k keeper) do(method, path string, body any) (int, []byte) {
	k.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			k.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(k.t.Context(), method, k.base+path, r)
	if err != nil {
		k.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		k.t.Fatal(err)
	}
	return resp.StatusCode, data
}

func initBody(rule string, required int) map[string]any {
	inputs := []map[string]any{}
	for _, n := range eval.Inputs {
		inputs = append(inputs, map[string]any{"name": n})
	}
	return map[string]any{
		"constants": map[string]any{
			"m_opt_init_knowledge_base":            "build_new",
			"m_opt_init_training_samples_required": required,
			"m_opt_init_max_upscale_delta":         6,
			"m_opt_init_max_downscale_delta":       "6",
			"m_opt_init_advice_freeze_interval":    0,
			"m_opt_init_rule":                      rule,
			"MAXNODES":                             12,
		},
		"input_metrics":  inputs,
		"target_metrics": []map[string]any{{"name": "AVG_LAT", "min_threshold": 105, "max_threshold": 160}},
		"min_instances":  1,
		"max_instances":  20,
	}
}

func sampleBody(inputs []float64, latency float64, replicas int, at time.Time) map[string]any {
	in := []map[string]any{}
	for i, n := range eval.Inputs {
		in = append(in, map[string]any{"name": n, "value": inputs[i]})
	}
	return map[string]any{"sample": map[string]any{
		"input_metrics":  in,
		"target_metrics": []map[string]any{{"name": "AVG_LAT", "value": latency}},
		"vm_number":      replicas,
		"timestamp":      float64(at.Unix()),
	}}
}

// TestPolicyKeeper drives the advisor as the policy keeper does: init,
// then every interval a sample and an advice, scaling by the advice when it
// is valid; the application is the evaluation's M/M/c model.
func TestPolicyKeeper(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rule     string
		required int
		// production is the latest sample count by which the phase must be
		// production.
		production int
		// trainingValid is whether training advice is valid.
		trainingValid bool
	}{
		{name: "meridian", rule: "meridian", required: 40, production: 150, trainingValid: true},
		{name: "seed", rule: "seed", required: 50, production: 50, trainingValid: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(NewServer(&MemStore{}, nil).Handler())
			defer srv.Close()
			k := keeper{t: t, base: srv.URL}
			if code, body := k.do("GET", "/advice", nil); code != 200 || !strings.Contains(string(body), `"valid": false`) {
				t.Fatalf("advice before init: %d %s, want 200 and valid false", code, body)
			}
			if code, body := k.do("POST", "/init", initBody(tc.rule, tc.required)); code != 200 {
				t.Fatalf("init: %d %s", code, body)
			}
			app := eval.App{ServiceRate: 10, Timeout: 2, Noise: 0.02}
			load := eval.Load{Base: 60, Amplitude: 0.5, BurstsPerDay: 0}.Series(200, time.Minute, 1)
			rng := rand.New(rand.NewPCG(1, 2))
			replicas := 8
			start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
			producedAt := 0
			for i, lambda := range load {
				inputs, lat := app.Observe(rng, lambda, replicas)
				if code, body := k.do("POST", "/sample", sampleBody(inputs, lat, replicas, start.Add(time.Duration(i)*time.Minute))); code != 200 {
					t.Fatalf("sample %d: %d %s", i, code, body)
				}
				_, body := k.do("GET", "/advice", nil)
				var a optimizer.Advice
				if err := json.Unmarshal(body, &a); err != nil {
					t.Fatalf("advice %d: %v\n%s", i, err, body)
				}
				if a.Reliability < 0 || a.Reliability > 100 {
					t.Fatalf("advice %d: reliability %v outside [0, 100]", i, a.Reliability)
				}
				if a.Phase == optimizer.PhaseTraining && a.Valid != tc.trainingValid {
					t.Fatalf("advice %d in training: valid %v, want %v (%s)", i, a.Valid, tc.trainingValid, body)
				}
				if a.Phase == optimizer.PhaseProduction {
					if producedAt == 0 {
						producedAt = i + 1
					}
					if !a.Valid {
						t.Fatalf("advice %d in production is not valid: %s", i, body)
					}
				}
				if a.Valid {
					if a.Replicas < 1 || a.Replicas > 20 || a.Replicas < replicas-6 || a.Replicas > replicas+6 {
						t.Fatalf("advice %d: %d replicas from %d, want within [1, 20] and ±6", i, a.Replicas, replicas)
					}
					replicas = a.Replicas
				}
			}
			if producedAt == 0 || producedAt > tc.production {
				t.Errorf("production reached after %d samples (0: never), want at most %d", producedAt, tc.production)
			}
			t.Logf("production after %d samples", producedAt)
			code, body := k.do("GET", "/report", nil)
			if code != 200 || !strings.Contains(string(body), "<svg") || !strings.Contains(string(body), "AVG_RR") {
				t.Errorf("report: %d, want 200 with a chart per metric", code)
			}
		})
	}
}

func TestBadRequests(t *testing.T) {
	srv := httptest.NewServer(NewServer(&MemStore{}, nil).Handler())
	defer srv.Close()
	k := keeper{t: t, base: srv.URL}
	if code, body := k.do("POST", "/sample", sampleBody([]float64{1, 2, 3}, 100, 1, time.Unix(0, 0))); code != http.StatusConflict {
		t.Errorf("sample before init: %d %s, want 409", code, body)
	}
	good := initBody("meridian", 40)
	if code, body := k.do("POST", "/init", good); code != 200 {
		t.Fatalf("init: %d %s", code, body)
	}
	withConstant := func(k string, v any) map[string]any {
		b := initBody("meridian", 40)
		b["constants"].(map[string]any)[k] = v
		return b
	}
	sample := func(edit func(s map[string]any)) map[string]any {
		b := sampleBody([]float64{1, 2, 3}, 100, 2, time.Unix(1700000000, 0))
		edit(b["sample"].(map[string]any))
		return b
	}
	for _, tc := range []struct {
		name  string
		path  string
		body  any
		field string
	}{
		{name: "not JSON", path: "/init", body: "{", field: ""},
		{name: "unknown field", path: "/init", body: `{"input_metric": []}`, field: "input_metric"},
		{name: "wrong type", path: "/init", body: `{"min_instances": "one"}`, field: "min_instances"},
		{name: "no inputs", path: "/init", body: `{"target_metrics": []}`, field: "input_metrics"},
		{name: "unknown constant", path: "/init", body: withConstant("m_opt_init_colour", 1), field: "constants.m_opt_init_colour"},
		{name: "bad delta", path: "/init", body: withConstant("m_opt_init_max_upscale_delta", 0), field: "constants.m_opt_init_max_upscale_delta"},
		{name: "bad knowledge base", path: "/init", body: withConstant("m_opt_init_knowledge_base", "keep"), field: "constants.m_opt_init_knowledge_base"},
		{name: "inverted band", path: "/init", body: `{"input_metrics":[{"name":"a"}],"target_metrics":[{"name":"t","min_threshold":5,"max_threshold":1}],"min_instances":1,"max_instances":3}`, field: "target_metrics[0].max_threshold"},
		{name: "no max_instances", path: "/init", body: `{"input_metrics":[{"name":"a"}],"target_metrics":[{"name":"t","min_threshold":1,"max_threshold":5}],"min_instances":1}`, field: "max_instances"},
		{name: "a cluster's price as a bare number, without its currency", path: "/init", body: withClusters(`[{"name":"a","price_per_hour":0.04}]`), field: "clusters.price_per_hour"},
		{name: "a cluster's price in no currency", path: "/init", body: withClusters(`[{"name":"a","price_per_hour":{"amount":"0.04","currency":""}}]`), field: "clusters[0].price_per_hour.currency"},
		{name: "a cluster's price that is not a decimal", path: "/init", body: withClusters(`[{"name":"a","price_per_hour":{"amount":"4e","currency":"USD"}}]`), field: "clusters[0].price_per_hour.amount"},
		{name: "clusters priced in two currencies", path: "/init", body: withClusters(`[{"name":"a","price_per_hour":{"amount":"0.04","currency":"USD"}},{"name":"b","price_per_hour":{"amount":"0.1","currency":"EUR"}}]`), field: "clusters[1].price_per_hour.currency"},
		{name: "no sample", path: "/sample", body: `{}`, field: "sample"},
		{name: "no vm_number", path: "/sample", body: sample(func(s map[string]any) { delete(s, "vm_number") }), field: "sample.vm_number"},
		{name: "zero vm_number", path: "/sample", body: sample(func(s map[string]any) { s["vm_number"] = 0 }), field: "sample.vm_number"},
		{name: "fractional vm_number", path: "/sample", body: sample(func(s map[string]any) { s["vm_number"] = 1.5 }), field: "sample.vm_number"},
		{name: "unknown input", path: "/sample", body: sample(func(s map[string]any) {
			s["input_metrics"] = []map[string]any{{"name": "GPU", "value": 1}}
		}), field: "sample.input_metrics[0].name"},
		{name: "missing input", path: "/sample", body: sample(func(s map[string]any) {
			s["input_metrics"] = []map[string]any{{"name": "CPU", "value": 1}}
		}), field: "sample.input_metrics"},
		{name: "null value", path: "/sample", body: sample(func(s map[string]any) {
			s["input_metrics"] = []map[string]any{{"name": "AVG_RR"}, {"name": "SUM_RR", "value": 1}, {"name": "CPU", "value": 1}}
		}), field: "sample.input_metrics[0].value"},
		{name: "wrong target", path: "/sample", body: sample(func(s map[string]any) {
			s["target_metrics"] = []map[string]any{{"name": "P99", "value": 1}}
		}), field: "sample.target_metrics"},
		{name: "string value", path: "/sample", body: `{"sample":{"vm_number":"2"}}`, field: "sample.vm_number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := k.do("POST", tc.path, tc.body)
			var e Error
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("body %s is not an error document: %v", body, err)
			}
			if diff := cmp.Diff(fmt.Sprint(http.StatusBadRequest, " ", tc.field), fmt.Sprint(code, " ", e.Field)); diff != "" {
				t.Errorf("status and field (-want +got):\n%s\nerror: %s", diff, e.Error)
			}
			if e.Error == "" {
				t.Error("no error message")
			}
		})
	}
	// The refused requests changed nothing: the init is still in force
	// and no sample was learned.
	code, body := k.do("POST", "/sample", sample(func(map[string]any) {}))
	var r SampleResponse
	if err := json.Unmarshal(body, &r); err != nil || code != 200 || r.Samples != 1 {
		t.Errorf("after the refused requests a good sample gives %d %s, want 200 and 1 sample", code, body)
	}
}

func TestKnowledgeBasePersists(t *testing.T) {
	store := FileStore{Path: t.TempDir() + "/kb.json"}
	k := func() keeper {
		srv := httptest.NewServer(NewServer(store, nil).Handler())
		t.Cleanup(srv.Close)
		return keeper{t: t, base: srv.URL}
	}
	first := k()
	if code, body := first.do("POST", "/init", initBody("meridian", 40)); code != 200 {
		t.Fatalf("init: %d %s", code, body)
	}
	for i := range 5 {
		if code, body := first.do("POST", "/sample", sampleBody([]float64{1, 2, 3}, 100, 2, time.Unix(int64(i), 0))); code != 200 {
			t.Fatalf("sample: %d %s", code, body)
		}
	}
	for _, tc := range []struct {
		name    string
		mode    string
		inputs  []map[string]any
		code    int
		samples int
	}{
		{name: "use_existing keeps", mode: "use_existing", code: 200, samples: 5},
		{name: "other metrics refused", mode: "use_existing", inputs: []map[string]any{{"name": "CPU"}}, code: 400, samples: 5},
		{name: "build_new empties", mode: "build_new", code: 200, samples: 0},
		{name: "empty stays empty", mode: "use_existing", code: 200, samples: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := initBody("meridian", 40)
			body["constants"].(map[string]any)["m_opt_init_knowledge_base"] = tc.mode
			if tc.inputs != nil {
				body["input_metrics"] = tc.inputs
			}
			code, data := k().do("POST", "/init", body)
			if code != tc.code {
				t.Fatalf("init: %d %s, want %d", code, data, tc.code)
			}
			kb, err := store.Load()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.samples, len(kb.Samples)); diff != "" {
				t.Errorf("samples on disk (-want +got):\n%s", diff)
			}
		})
	}
}

// withClusters is a valid /init body with clusters, a JSON array.
func withClusters(clusters string) string {
	return `{"input_metrics":[{"name":"a"}],"target_metrics":[{"name":"t","min_threshold":1,"max_threshold":5}],"min_instances":1,"max_instances":3,"clusters":` + clusters + `}`
}
