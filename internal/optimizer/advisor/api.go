package advisor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/optimizer"
)

// InitRequest is the body of POST /init, with the policy keeper's names.
type InitRequest struct {
	// Constants holds the m_opt_init_* settings; other constants are ignored
	// (a policy keeper may pass all of its policy's constants).
	Constants     map[string]any `json:"constants"`
	InputMetrics  []InputMetric  `json:"input_metrics"`
	TargetMetrics []TargetMetric `json:"target_metrics"`
	// MinInstances and MaxInstances are the policy's replica bounds.
	MinInstances *int `json:"min_instances"`
	MaxInstances *int `json:"max_instances"`
	// Clusters prices the advice (Meridian's addition).
	Clusters []Cluster `json:"clusters,omitempty"`
}

// InputMetric declares one system metric (m_opt_input_NAME).
type InputMetric struct {
	Name  string `json:"name"`
	Query string `json:"query,omitempty"`
}

// TargetMetric declares the target (m_opt_target_query_NAME with its
// m_opt_target_minth_NAME and m_opt_target_maxth_NAME).
type TargetMetric struct {
	Name         string   `json:"name"`
	Query        string   `json:"query,omitempty"`
	MinThreshold *float64 `json:"min_threshold"`
	MaxThreshold *float64 `json:"max_threshold"`
}

// Cluster is a cluster the workload may use, with its price.
type Cluster struct {
	Name string `json:"name"`
	// PricePerHour is one replica's price for an hour; every cluster is
	// priced in one currency.
	PricePerHour *Price `json:"price_per_hour"`
	MaxReplicas  int    `json:"max_replicas,omitempty"`
}

// Price is an amount in a currency, as the API writes money:
// {"amount": "0.04", "currency": "USD"}.
type Price struct {
	// Amount is a decimal string, read exactly.
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// SampleRequest is the body of POST /sample.
type SampleRequest struct {
	Sample *SampleBody `json:"sample"`
}

// SampleBody is one observation.
type SampleBody struct {
	InputMetrics  []MetricValue `json:"input_metrics"`
	TargetMetrics []MetricValue `json:"target_metrics"`
	VMNumber      *int          `json:"vm_number"`
	// Timestamp is in seconds since the Unix epoch; the server's clock
	// when absent.
	Timestamp *float64 `json:"timestamp,omitempty"`
}

// MetricValue is one metric's value in a sample.
type MetricValue struct {
	Name  string   `json:"name"`
	Value *float64 `json:"value"`
}

// Error is the body of every error response.
type Error struct {
	Error string `json:"error"`
	// Field is the offending field's path in the request body.
	Field string `json:"field,omitempty"`
}

// BadRequest is a request error naming the field.
type BadRequest struct {
	Field string
	Msg   string
}

func (e *BadRequest) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func bad(field, format string, args ...any) error {
	return &BadRequest{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// maxBody bounds a request body.
const maxBody = 1 << 20

// decode reads one JSON object into v, refusing unknown fields and
// trailing data, and turns decoding errors into BadRequests that name the
// field.
func decode(r io.Reader, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return bad("", "failed to read the body: %v", err)
	}
	if len(data) > maxBody {
		return bad("", "body larger than %d bytes", maxBody)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr):
			return bad(typeErr.Field, "got a JSON %s, want %s", typeErr.Value, jsonKind(typeErr.Type.String()))
		case errors.As(err, &syntaxErr):
			return bad("", "malformed JSON at byte %d: %v", syntaxErr.Offset, err)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
			return bad(name, "unknown field")
		case errors.Is(err, io.EOF):
			return bad("", "empty body: want a JSON object")
		}
		return bad("", "malformed JSON: %v", err)
	}
	if dec.More() {
		return bad("", "trailing data after the JSON object")
	}
	return nil
}

func jsonKind(goType string) string {
	switch {
	case strings.Contains(goType, "float"), strings.Contains(goType, "int"):
		return "a number"
	case strings.Contains(goType, "string"):
		return "a string"
	case strings.HasPrefix(goType, "[]"), strings.HasPrefix(goType, "*[]"):
		return "an array"
	case strings.Contains(goType, "bool"):
		return "true or false"
	}
	return "an object"
}

// Knowledge-base modes of m_opt_init_knowledge_base.
const (
	BuildNew    = "build_new"
	UseExisting = "use_existing"
)

// constants maps every m_opt_init_* constant to how it sets the
// configuration.
var constants = map[string]func(c *optimizer.Config, v any) error{
	"m_opt_init_training_samples_required": intConst(10, 1_000_000, func(c *optimizer.Config, n int) { c.TrainingSamplesRequired = n }),
	"m_opt_init_max_upscale_delta":         intConst(1, 10_000, func(c *optimizer.Config, n int) { c.MaxUpscaleDelta = n }),
	"m_opt_init_max_downscale_delta":       intConst(1, 10_000, func(c *optimizer.Config, n int) { c.MaxDownscaleDelta = n }),
	"m_opt_init_advice_freeze_interval": floatConst(0, 30*24*3600, func(c *optimizer.Config, f float64) {
		c.FreezeInterval = time.Duration(f * float64(time.Second))
	}),
	"m_opt_init_knowledge_base_size": intConst(10, 100_000, func(c *optimizer.Config, n int) { c.KnowledgeBaseSize = n }),
	"m_opt_init_max_holdout_error":   floatConst(1e-9, 100, func(c *optimizer.Config, f float64) { c.MaxHoldoutError = f }),
	"m_opt_init_safety_margin":       floatConst(0, 0.499, func(c *optimizer.Config, f float64) { c.SafetyMargin = f }),
	"m_opt_init_advice_margin":       floatConst(0, 0.499, func(c *optimizer.Config, f float64) { c.AdviceMargin = f }),
	"m_opt_init_retrain_every":       intConst(1, 100_000, func(c *optimizer.Config, n int) { c.RetrainEvery = n }),
	"m_opt_init_hidden_units":        intConst(1, 64, func(c *optimizer.Config, n int) { c.Hidden = n }),
	"m_opt_init_seed":                intConst(0, math.MaxInt32, func(c *optimizer.Config, n int) { c.Seed = uint64(n) }),
	"m_opt_init_rule": func(c *optimizer.Config, v any) error {
		s, ok := v.(string)
		if !ok || (s != string(optimizer.RuleMeridian) && s != string(optimizer.RuleSeed)) {
			return fmt.Errorf("got %v, want %q or %q", v, optimizer.RuleMeridian, optimizer.RuleSeed)
		}
		c.Rule = optimizer.Rule(s)
		return nil
	},
	// The knowledge-base mode is read by the server, not the config.
	"m_opt_init_knowledge_base": func(_ *optimizer.Config, v any) error {
		if s, ok := v.(string); !ok || (s != BuildNew && s != UseExisting) {
			return fmt.Errorf("got %v, want %q or %q", v, BuildNew, UseExisting)
		}
		return nil
	},
}

// number accepts a JSON number or a string holding one: a policy keeper
// passes constants from YAML, where both appear.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

func intConst(lo, hi int, set func(*optimizer.Config, int)) func(*optimizer.Config, any) error {
	return func(c *optimizer.Config, v any) error {
		f, ok := number(v)
		if !ok || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
			return fmt.Errorf("got %v, want an integer in [%d, %d]", v, lo, hi)
		}
		set(c, int(f))
		return nil
	}
}

func floatConst(lo, hi float64, set func(*optimizer.Config, float64)) func(*optimizer.Config, any) error {
	return func(c *optimizer.Config, v any) error {
		f, ok := number(v)
		if !ok || f < lo || f > hi {
			return fmt.Errorf("got %v, want a number in [%g, %g]", v, lo, hi)
		}
		set(c, f)
		return nil
	}
}

// Config turns an /init body into the optimizer's configuration and the
// knowledge-base mode, or a BadRequest naming the field.
func (r *InitRequest) Config() (optimizer.Config, string, error) {
	if len(r.InputMetrics) == 0 {
		return optimizer.Config{}, "", bad("input_metrics", "at least one input metric is required, e.g. [{\"name\": \"AVG_RR\"}]")
	}
	if len(r.TargetMetrics) != 1 {
		return optimizer.Config{}, "", bad("target_metrics", "got %d target metrics, want exactly 1", len(r.TargetMetrics))
	}
	t := r.TargetMetrics[0]
	switch {
	case t.Name == "":
		return optimizer.Config{}, "", bad("target_metrics[0].name", "must name the target metric")
	case t.MinThreshold == nil:
		return optimizer.Config{}, "", bad("target_metrics[0].min_threshold", "required: the value above which the target must stay")
	case t.MaxThreshold == nil:
		return optimizer.Config{}, "", bad("target_metrics[0].max_threshold", "required: the value below which the target must stay")
	}
	if r.MinInstances == nil {
		return optimizer.Config{}, "", bad("min_instances", "required: the fewest replicas to advise (at least 1)")
	}
	if r.MaxInstances == nil {
		return optimizer.Config{}, "", bad("max_instances", "required: the most replicas to advise")
	}
	inputs := make([]string, len(r.InputMetrics))
	for i, m := range r.InputMetrics {
		inputs[i] = m.Name
	}
	cfg := optimizer.Default(inputs, optimizer.Target{Name: t.Name, Min: *t.MinThreshold, Max: *t.MaxThreshold}, *r.MinInstances, *r.MaxInstances)
	mode := UseExisting
	keys := make([]string, 0, len(r.Constants))
	for k := range r.Constants {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// RuleSeed changes the default sample count, so it is applied first.
	if v, ok := r.Constants["m_opt_init_rule"]; ok {
		if err := constants["m_opt_init_rule"](&cfg, v); err != nil {
			return optimizer.Config{}, "", bad("constants.m_opt_init_rule", "%v", err)
		}
		if cfg.Rule == optimizer.RuleSeed {
			cfg.TrainingSamplesRequired = optimizer.DefaultSeedTrainingSamples
			cfg.AdviceMargin = 0
		}
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "m_opt_") {
			continue
		}
		set, ok := constants[k]
		if !ok {
			names := make([]string, 0, len(constants))
			for n := range constants {
				names = append(names, n)
			}
			sort.Strings(names)
			return optimizer.Config{}, "", bad("constants."+k, "unknown optimizer constant; known: %s", strings.Join(names, ", "))
		}
		if err := set(&cfg, r.Constants[k]); err != nil {
			return optimizer.Config{}, "", bad("constants."+k, "%v", err)
		}
		if k == "m_opt_init_knowledge_base" {
			mode = r.Constants[k].(string)
		}
	}
	cfg.KnowledgeBaseSize = max(cfg.KnowledgeBaseSize, cfg.TrainingSamplesRequired)
	for i, c := range r.Clusters {
		f := fmt.Sprintf("clusters[%d].price_per_hour", i)
		if c.PricePerHour == nil {
			return optimizer.Config{}, "", bad(f, `required: one replica's price for an hour, such as {"amount": "0.04", "currency": "USD"}`)
		}
		price, err := money.Parse(c.PricePerHour.Amount, c.PricePerHour.Currency)
		switch {
		case errors.Is(err, money.ErrCurrency):
			return optimizer.Config{}, "", bad(f+".currency", "%v", err)
		case err != nil:
			return optimizer.Config{}, "", bad(f+".amount", `%v: want a decimal string such as "0.04"`, err)
		}
		cfg.Clusters = append(cfg.Clusters, optimizer.ClusterPrice{Name: c.Name, PricePerHour: price, MaxReplicas: c.MaxReplicas})
	}
	if err := cfg.Validate(); err != nil {
		var fe *optimizer.FieldError
		if errors.As(err, &fe) {
			return optimizer.Config{}, "", bad(initField(fe.Field), "%v: %s", fe.Value, fe.Valid)
		}
		return optimizer.Config{}, "", bad("", "%v", err)
	}
	return cfg, mode, nil
}

// initField names a configuration field as the /init body spells it.
func initField(field string) string {
	switch {
	case strings.HasPrefix(field, "inputs"):
		return "input_metrics" + strings.TrimPrefix(field, "inputs")
	case field == "target.name":
		return "target_metrics[0].name"
	case field == "target.min":
		return "target_metrics[0].min_threshold"
	case field == "target.max":
		return "target_metrics[0].max_threshold"
	case field == "minReplicas":
		return "min_instances"
	case field == "maxReplicas":
		return "max_instances"
	case strings.HasPrefix(field, "clusters"):
		return strings.NewReplacer("pricePerHour", "price_per_hour", "maxReplicas", "max_replicas").Replace(field)
	}
	return "constants"
}

// toSample turns a /sample body into a sample for cfg, or a BadRequest.
func (r *SampleRequest) toSample(cfg optimizer.Config, now time.Time) (optimizer.Sample, error) {
	b := r.Sample
	if b == nil {
		return optimizer.Sample{}, bad("sample", "required: an object with input_metrics, target_metrics and vm_number")
	}
	if b.VMNumber == nil {
		return optimizer.Sample{}, bad("sample.vm_number", "required: the current replica count (at least 1)")
	}
	if *b.VMNumber < 1 {
		return optimizer.Sample{}, bad("sample.vm_number", "got %d, want at least 1", *b.VMNumber)
	}
	s := optimizer.Sample{Replicas: *b.VMNumber, Inputs: make([]float64, len(cfg.Inputs)), Time: now}
	if b.Timestamp != nil {
		ts := *b.Timestamp
		if math.IsNaN(ts) || ts < 0 || ts > 1e11 {
			return optimizer.Sample{}, bad("sample.timestamp", "got %v, want seconds since the Unix epoch", ts)
		}
		s.Time = time.Unix(0, int64(ts*1e9)).UTC()
	}
	index := make(map[string]int, len(cfg.Inputs))
	for i, n := range cfg.Inputs {
		index[n] = i
	}
	got := make([]bool, len(cfg.Inputs))
	for i, m := range b.InputMetrics {
		k, ok := index[m.Name]
		field := fmt.Sprintf("sample.input_metrics[%d]", i)
		switch {
		case !ok:
			return optimizer.Sample{}, bad(field+".name", "got %q, want one of the metrics registered by /init: %s", m.Name, strings.Join(cfg.Inputs, ", "))
		case got[k]:
			return optimizer.Sample{}, bad(field+".name", "%q appears twice", m.Name)
		case m.Value == nil:
			return optimizer.Sample{}, bad(field+".value", "required: the value of %q as a number", m.Name)
		}
		got[k] = true
		s.Inputs[k] = *m.Value
	}
	for k, ok := range got {
		if !ok {
			return optimizer.Sample{}, bad("sample.input_metrics", "missing %q; want one value for each of %s", cfg.Inputs[k], strings.Join(cfg.Inputs, ", "))
		}
	}
	if len(b.TargetMetrics) != 1 || b.TargetMetrics[0].Name != cfg.Target.Name {
		return optimizer.Sample{}, bad("sample.target_metrics", "want exactly one value, named %q", cfg.Target.Name)
	}
	if b.TargetMetrics[0].Value == nil {
		return optimizer.Sample{}, bad("sample.target_metrics[0].value", "required: the value of %q as a number", cfg.Target.Name)
	}
	s.Target = *b.TargetMetrics[0].Value
	return s, nil
}
