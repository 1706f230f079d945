package policy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/util"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/meridian-dev/meridian/policies"
)

// An Engine evaluates Rego queries in-process against one bundle revision at
// a time, swaps in new revisions as its bundle source changes, and logs
// every decision. It is safe for concurrent use.
type Engine struct {
	opts    Options
	verify  *bundle.VerificationConfig
	client  *http.Client
	now     func() time.Time
	logger  logr.Logger
	metrics *metrics
	log     *decisionLog
	closer  io.Closer

	current atomic.Pointer[revision]
	kept    revisions

	// loadMu serialises loads; etag and status are written under it (status
	// is also read under statusMu).
	loadMu   sync.Mutex
	etag     string
	statusMu sync.Mutex
	status   Status

	// Set by Options, read by New.
	registerer    prometheus.Registerer
	writer        io.Writer
	defaultBundle fs.FS
}

// Status is what the engine evaluates now and how its last load went.
type Status struct {
	// Revision is the bundle revision evaluated now, Source where it came
	// from and LoadedAt when it was loaded.
	Revision string
	Source   string
	LoadedAt time.Time
	// LastAttempt is when the bundle source was last read.
	LastAttempt time.Time
	// Err is why the last bundle read was refused, nil when it was not; the
	// engine kept the revision it had.
	Err error
}

// An Option changes how New builds an Engine.
type Option func(*Engine)

// WithRegisterer registers the engine's Prometheus metrics with reg.
func WithRegisterer(reg prometheus.Registerer) Option {
	return func(e *Engine) { e.registerer = reg }
}

// WithDecisionWriter writes decisions to w as JSON lines, in place of
// Options.DecisionLogPath.
func WithDecisionWriter(w io.Writer) Option {
	return func(e *Engine) { e.writer = w }
}

// WithHTTPClient downloads bundles with client.
func WithHTTPClient(client *http.Client) Option {
	return func(e *Engine) { e.client = client }
}

// WithClock reads decision and load times from now.
func WithClock(now func() time.Time) Option {
	return func(e *Engine) { e.now = now }
}

// WithLogger logs bundle loads and refusals to logger.
func WithLogger(logger logr.Logger) Option {
	return func(e *Engine) { e.logger = logger }
}

// WithDefaultBundle evaluates the bundle in fsys until another is loaded,
// in place of the one embedded in the binary (policies.Bundle).
func WithDefaultBundle(fsys fs.FS) Option {
	return func(e *Engine) { e.defaultBundle = fsys }
}

// New builds an Engine. It compiles the default bundle (the one embedded in
// the binary unless WithDefaultBundle says otherwise), then, when
// opts.BundleDir or opts.BundleURL is set, reads that source once: if the
// read fails the engine keeps the default, and Status reports why. Start
// keeps reading the source every opts.PollInterval.
func New(ctx context.Context, opts Options, options ...Option) (*Engine, error) {
	opts.Default()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("invalid policy options: %w", err)
	}
	e := &Engine{
		opts:          opts,
		client:        &http.Client{Timeout: 30 * time.Second},
		now:           time.Now,
		logger:        logr.Discard(),
		metrics:       newMetrics(),
		defaultBundle: policies.Bundle,
	}
	for _, o := range options {
		o(e)
	}
	e.kept.max = opts.KeepRevisions
	if e.registerer != nil {
		if err := e.metrics.register(e.registerer); err != nil {
			return nil, fmt.Errorf("failed to register the policy metrics: %w", err)
		}
	}
	vc, err := verificationConfig(opts)
	if err != nil {
		return nil, err
	}
	e.verify = vc

	w := e.writer
	if w == nil && opts.DecisionLogPath != "" {
		f, err := os.OpenFile(opts.DecisionLogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("failed to open the decision log (decisionLogPath %q): %w", opts.DecisionLogPath, err)
		}
		w, e.closer = f, f
	}
	e.log = newDecisionLog(w, opts.DecisionLogSize)

	// The default bundle is part of the binary: it is trusted as the binary
	// is, and not verified.
	b, err := readFS(e.defaultBundle, nil, "the default bundle")
	if err != nil {
		return nil, err
	}
	if err := e.install(ctx, b, "default"); err != nil {
		return nil, err
	}
	if opts.BundleDir != "" || opts.BundleURL != "" {
		if err := e.Reload(ctx); err != nil {
			e.logger.Error(err, "Policy bundle not loaded; evaluating the default bundle", "revision", e.current.Load().name)
		}
	}
	return e, nil
}

// Close waits for the decision log's pending lines to be written and closes
// the decision log file the engine opened.
func (e *Engine) Close() error {
	e.log.flush()
	if e.closer == nil {
		return nil
	}
	return e.closer.Close()
}

// Start reads the bundle source every PollInterval until ctx is done, so
// that the engine runs as a controller-runtime Runnable (mgr.Add(engine)).
// Without a bundle folder or URL it only waits for ctx.
func (e *Engine) Start(ctx context.Context) error {
	if e.opts.BundleDir == "" && e.opts.BundleURL == "" {
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(e.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			// Reload reports its own failures (Status, metrics, log).
			_ = e.Reload(ctx)
		}
	}
}

// Reload reads the bundle source once (the folder, or the URL with
// If-None-Match) and, when it holds a new revision, compiles it and swaps
// it in. A bundle that cannot be downloaded, read, verified or compiled is
// refused: the current revision stays, and the error (wrapping ErrBundle) is
// returned and kept in Status.
func (e *Engine) Reload(ctx context.Context) error {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	now := e.now()
	var (
		b      *bundle.Bundle
		source string
		etag   string
		err    error
	)
	switch {
	case e.opts.BundleURL != "":
		source = e.opts.BundleURL
		b, etag, err = download(ctx, e.client, e.opts.BundleURL, e.etag, e.verify)
	case e.opts.BundleDir != "":
		source = e.opts.BundleDir
		b, err = readDir(e.opts.BundleDir, e.verify)
	default:
		return nil
	}
	if err == nil && b != nil && b.Manifest.Revision == e.current.Load().name && b.Manifest.Revision != "" {
		b = nil // the revision evaluated now
	}
	if err == nil && b != nil {
		err = e.install(ctx, b, source)
	}
	if err != nil {
		e.metrics.loadFailures.WithLabelValues(stageOf(err)).Inc()
		err = fmt.Errorf("%w: %w", ErrBundle, err)
		e.logger.Error(err, "Policy bundle refused; keeping the current revision", "source", source, "revision", e.current.Load().name)
	} else if etag != "" {
		e.etag = etag
	}
	e.statusMu.Lock()
	e.status.LastAttempt = now
	e.status.Err = err
	e.statusMu.Unlock()
	return err
}

// install compiles b and makes it the revision evaluated from now on.
func (e *Engine) install(ctx context.Context, b *bundle.Bundle, source string) error {
	r, err := compile(ctx, b, source, e.now())
	if err != nil {
		return refuse(stageCompile, err)
	}
	prev := e.current.Swap(r)
	e.kept.add(r)
	if prev != nil {
		e.metrics.revision.DeleteLabelValues(prev.name, prev.source)
	}
	e.metrics.revision.WithLabelValues(r.name, source).Set(1)
	e.metrics.lastLoad.Set(float64(r.loadedAt.UnixNano()) / 1e9)
	e.statusMu.Lock()
	e.status.Revision, e.status.Source, e.status.LoadedAt = r.name, source, r.loadedAt
	e.statusMu.Unlock()
	e.logger.Info("Policy bundle loaded", "revision", r.name, "source", source)
	return nil
}

// Status returns what the engine evaluates now and how its last load went.
func (e *Engine) Status() Status {
	e.statusMu.Lock()
	defer e.statusMu.Unlock()
	return e.status
}

// Revision returns the bundle revision evaluated now.
func (e *Engine) Revision() string { return e.current.Load().name }

// Eval evaluates query (e.g. "data.meridian.vm.decision") with input on the
// current revision, logs the decision and returns it; its Result is the
// query's first value as JSON. A query without a result returns the logged
// decision and ErrUndefined.
func (e *Engine) Eval(ctx context.Context, query string, input any) (Decision, error) {
	raw, err := marshalInput(input)
	if err != nil {
		d, _, err := e.evaluate(ctx, query, nil, nil, err, nil)
		return d, err
	}
	d, _, err := e.evaluate(ctx, query, raw, nil, nil, nil)
	return d, err
}

// evaluate evaluates query with the input raw (as JSON) on the current
// revision, logs the decision and returns it with the result as a Rego
// value; parsed, when set, is raw as a Rego value, so that it is not decoded
// again. outcome reads the metrics' outcome from the result (nil: "ok").
// inputErr is why the input could not be encoded.
func (e *Engine) evaluate(ctx context.Context, query string, raw json.RawMessage, parsed ast.Value, inputErr error, outcome func(ast.Value) string) (Decision, ast.Value, error) {
	start := time.Now()
	r := e.current.Load()
	d := Decision{ID: newID(), Time: e.now(), Revision: r.name, Query: query, Input: raw}
	err := inputErr
	valid := false // whether raw is known to be valid JSON
	var result ast.Value
	if err == nil {
		if parsed == nil {
			parsed, err = parseInput(query, raw)
		}
		if err == nil {
			valid = true
			result, err = evalValue(ctx, r, query, parsed)
		}
		if err == nil {
			d.Result, err = encodeResult(query, result)
		}
	}
	e.metrics.duration.WithLabelValues(query).Observe(time.Since(start).Seconds())
	out := "ok"
	switch {
	case errors.Is(err, ErrUndefined):
		out = "undefined"
	case err != nil:
		out = "error"
	case outcome != nil:
		out = outcome(result)
	}
	e.metrics.evaluations.WithLabelValues(query, out).Inc()
	if err != nil {
		d.Error = err.Error()
	}
	e.log.record(d, valid, e.logger)
	return d, result, err
}

// evalOn evaluates query with the JSON input on revision r.
func evalOn(ctx context.Context, r *revision, query string, input json.RawMessage) (json.RawMessage, error) {
	v, err := parseInput(query, input)
	if err != nil {
		return nil, err
	}
	result, err := evalValue(ctx, r, query, v)
	if err != nil {
		return nil, err
	}
	return encodeResult(query, result)
}

// parseInput decodes a JSON input into the Rego value OPA evaluates.
func parseInput(query string, input json.RawMessage) (ast.Value, error) {
	var doc any
	if err := util.UnmarshalJSON(input, &doc); err != nil {
		return nil, fmt.Errorf("failed to read the input of query %q: %w", query, err)
	}
	v, err := ast.InterfaceToValue(doc)
	if err != nil {
		return nil, fmt.Errorf("failed to convert the input of query %q: %w", query, err)
	}
	return v, nil
}

// evalValue evaluates query with input on revision r, on the query prepared
// once per revision, and returns its first value.
func evalValue(ctx context.Context, r *revision, query string, input ast.Value) (ast.Value, error) {
	pq, err := r.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(input), asTerm)
	if err != nil {
		return nil, fmt.Errorf("failed to evaluate %q on bundle revision %q: %w", query, r.name, err)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, fmt.Errorf("%w: %q on bundle revision %q", ErrUndefined, query, r.name)
	}
	t, ok := rs[0].Expressions[0].Value.(*ast.Term)
	if !ok {
		return nil, fmt.Errorf("failed to read the result of %q: got a %T", query, rs[0].Expressions[0].Value)
	}
	return t.Value, nil
}

// encodeResult writes a query's result as JSON.
func encodeResult(query string, v ast.Value) (json.RawMessage, error) {
	b, err := appendJSON(make([]byte, 0, 4096), v)
	if err != nil {
		return nil, fmt.Errorf("failed to encode the result of %q: %w", query, err)
	}
	return b, nil
}

func marshalInput(input any) (json.RawMessage, error) {
	if raw, ok := input.(json.RawMessage); ok {
		return raw, nil
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("failed to encode the policy input: %w", err)
	}
	return raw, nil
}

// newID returns a random decision ID (a version 4 UUID).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
