package policy

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// VMQuery is the query the VM policies answer.
const VMQuery = "data.meridian.vm.decision"

// revision is one bundle compiled: its modules, its data in an in-memory
// store, and the queries prepared against them. A revision never changes
// once built, so evaluations share it without locks; a new bundle builds a
// new revision.
type revision struct {
	name     string
	source   string
	loadedAt time.Time
	compiler *ast.Compiler
	store    storage.Store

	mu      sync.Mutex
	queries map[string]*rego.PreparedEvalQuery
}

// compile builds a revision from a bundle that has been read (and
// verified). It prepares the VM query at once, so a bundle whose VM policies
// do not compile is refused before it is used.
func compile(ctx context.Context, b *bundle.Bundle, source string, now time.Time) (*revision, error) {
	name := b.Manifest.Revision
	if name == "" {
		return nil, fmt.Errorf("bundle from %s has no revision in its .manifest", source)
	}
	compiler := ast.NewCompiler()
	modules := map[string]*ast.Module{}
	for _, m := range b.Modules {
		modules[m.Path] = m.Parsed
	}
	if compiler.Compile(modules); compiler.Failed() {
		return nil, fmt.Errorf("failed to compile bundle revision %q from %s: %w", name, source, compiler.Errors)
	}
	data := b.Data
	if data == nil {
		data = map[string]any{}
	}
	r := &revision{
		name:     name,
		source:   source,
		loadedAt: now,
		compiler: compiler,
		store:    inmem.NewFromObjectWithOpts(data, inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(true)),
		queries:  map[string]*rego.PreparedEvalQuery{},
	}
	if _, err := r.prepared(ctx, VMQuery); err != nil {
		return nil, err
	}
	return r, nil
}

// prepared returns the query prepared against the revision, preparing it
// the first time it is asked for.
func (r *revision) prepared(ctx context.Context, query string) (*rego.PreparedEvalQuery, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if pq, ok := r.queries[query]; ok {
		return pq, nil
	}
	pq, err := rego.New(
		rego.Query(query),
		rego.Compiler(r.compiler),
		rego.Store(r.store),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to prepare query %q on bundle revision %q: %w", query, r.name, err)
	}
	r.queries[query] = &pq
	return &pq, nil
}

// revisions keeps the most recent compiled revisions, newest last, so that
// Replay finds the revision a logged decision was made with.
type revisions struct {
	mu   sync.Mutex
	max  int
	list []*revision
}

func (rs *revisions) add(r *revision) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i, old := range rs.list {
		if old.name == r.name {
			rs.list = append(rs.list[:i], rs.list[i+1:]...)
			break
		}
	}
	rs.list = append(rs.list, r)
	if len(rs.list) > rs.max {
		rs.list = rs.list[len(rs.list)-rs.max:]
	}
}

func (rs *revisions) get(name string) (*revision, []string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	names := make([]string, 0, len(rs.list))
	for _, r := range rs.list {
		if r.name == name {
			return r, nil
		}
		names = append(names, r.name)
	}
	return nil, names
}
